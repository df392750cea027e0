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
	// Name is the identifier the model calls: [a-zA-Z0-9_-], at most 64
	// characters (what every provider accepts). The agent's own tools use
	// [a-z_]+; an MCP server's are mcp__SERVER__TOOL.
	Name string
	// Description is markdown; the part before the first blank line is the
	// brief (see Brief) and the whole is sent once the tool is picked.
	Description string
	// Schema is the JSON Schema (draft 2020-12) of the arguments object.
	Schema json.RawMessage
	// ReadOnly is true for a tool that changes nothing; such calls may run
	// concurrently and need no approval. It must agree with Effects: a
	// read-only tool has no effect beyond ReadsWorkspace.
	ReadOnly bool
	// Effects is what a call can do to the world; approval decides from
	// it, never from the tool's name. Zero means unknown (see
	// EffectsUnknown).
	Effects Effects
}

// Effects is a set of the things a tool's call can do.
type Effects uint8

// The effects a tool can have.
const (
	// ReadsWorkspace: the call reads files of the working directory.
	ReadsWorkspace Effects = 1 << iota
	// WritesWorkspace: the call changes files of the working directory.
	WritesWorkspace
	// RunsCommands: the call runs programs the model chose.
	RunsCommands
	// ReachesNetwork: the call talks to other machines.
	ReachesNetwork
	// EffectsUnknown: nobody vouches for what the call does (an MCP
	// server's tool whose annotations do not say read-only). A Definition
	// whose Effects is zero is treated the same.
	EffectsUnknown
)

// Has reports whether e includes every effect of want.
func (e Effects) Has(want Effects) bool { return e&want == want }

// Unknown reports whether nothing vouches for the effects: the set is
// empty or includes EffectsUnknown.
func (e Effects) Unknown() bool { return e == 0 || e.Has(EffectsUnknown) }

// String names the effects ("reads workspace, runs commands").
func (e Effects) String() string {
	if e == 0 {
		return "unknown"
	}
	var names []string
	for _, n := range []struct {
		e    Effects
		name string
	}{{ReadsWorkspace, "reads workspace"}, {WritesWorkspace, "writes workspace"}, {RunsCommands, "runs commands"},
		{ReachesNetwork, "reaches network"}, {EffectsUnknown, "unknown"}} {
		if e.Has(n.e) {
			names = append(names, n.name)
		}
	}
	return strings.Join(names, ", ")
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
	// References names tools whose full definitions this result delivers
	// (pick_tools in pick mode, see providers.ToolResult.References).
	References []string
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
