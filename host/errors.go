package host

import "fmt"

// UsageError marks an error the person can fix by changing the command
// line or the configuration; cmd maps it to exit code 2.
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

// usagef returns a UsageError with a formatted message.
func usagef(format string, args ...any) error { return UsageError{Err: fmt.Errorf(format, args...)} }
