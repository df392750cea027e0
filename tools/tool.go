// Package tools defines what a tool is to the agent: a definition (name,
// description whose first line is the brief, JSON Schema of the arguments)
// and a Run method. It also holds the Registry, which validates arguments
// against each tool's schema before the tool runs.
package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// Tool is something the model can call.
type Tool interface {
	// Definition describes the tool. It must return the same value on every
	// call.
	Definition() Definition
	// Run executes the tool with arguments that already passed schema
	// validation. A problem the model can act on (a missing file, a bad
	// regular expression, a denied command) is a Result with IsError set and
	// a nil error; a Go error means the machinery itself broke. Run must
	// return promptly once ctx is cancelled.
	Run(ctx context.Context, args json.RawMessage) (Result, error)
}

// Definition is a tool's description for the model.
type Definition struct {
	// Name is the identifier the model calls, [a-z_]+.
	Name string
	// Description is markdown; the part before the first blank line is the
	// brief (see Brief) and the whole is sent once the tool is picked.
	Description string
	// Schema is the JSON Schema (draft 2020-12) of the arguments object.
	Schema json.RawMessage
	// ReadOnly is true for a tool that changes nothing; such calls may run
	// concurrently and need no approval.
	ReadOnly bool
}

// Brief returns the description's title: the text before the first blank
// line, joined onto one line (the convention of go/analysis Analyzer.Doc).
func (d Definition) Brief() string {
	title, _, _ := strings.Cut(strings.TrimSpace(d.Description), "\n\n")
	return strings.Join(strings.Fields(title), " ")
}

// Result is what a tool call produced.
type Result struct {
	// Content is the text the model reads.
	Content string
	// IsError marks a failure the model can recover from.
	IsError bool
	// Meta carries structured details for people and scripts (a diff, an
	// exit status, counts). It is not sent to the model; values must encode
	// as JSON.
	Meta map[string]any
}

// Errorf returns an error Result whose content is the formatted message.
func Errorf(format string, args ...any) Result {
	return Result{Content: fmt.Sprintf(format, args...), IsError: true}
}

// Previewer is a tool that can say what a call would change without
// changing it (an edit's diff), so that a person can approve the change
// itself. Preview returns the Result Run would return, minus the effect:
// its Meta carries the change, or IsError the reason it would fail.
type Previewer interface {
	Preview(ctx context.Context, args json.RawMessage) (Result, error)
}
