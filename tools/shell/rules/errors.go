package rules

import "errors"

// ErrInvalidRule is wrapped by every error Compile returns: the rule is empty,
// does not parse, or is not a command name followed by literal words.
var ErrInvalidRule = errors.New("invalid command rule")
