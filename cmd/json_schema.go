package cmd

import (
	"os"
	"strings"

	"github.com/agent-dev/agent/host"
)

// answerSchema reads --json-schema's value: the schema itself when it
// starts with "{" (the Claude Agent SDK passes its outputFormat's schema
// so), else the path of a file holding it. "" is no schema (nil). A file that
// cannot be read or a schema that does not compile is a usage error.
func answerSchema(value string) (*host.AnswerSchema, error) {
	if value == "" {
		return nil, nil
	}
	doc := []byte(value)
	if !strings.HasPrefix(strings.TrimSpace(value), "{") {
		var err error
		if doc, err = os.ReadFile(value); err != nil {
			return nil, usagef("--json-schema: %w", err)
		}
	}
	return host.ParseAnswerSchema(doc)
}
