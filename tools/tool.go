// Package tools defines what a tool is to the agent: a definition (name,
// description whose first line is the brief, JSON Schema of the arguments)
// and a Run method. It also holds the Registry, which validates arguments
// against each tool's schema before the tool runs.
package tools

import (
	"bytes"
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
	// Run executes the call, whose Args already passed schema validation.
	// A problem the model can act on (a missing file, a bad regular
	// expression, a denied command) is a Result with IsError set and a nil
	// error; a Go error means the machinery itself broke. Run must return
	// promptly once ctx is cancelled.
	Run(ctx context.Context, call Call) (Result, error)
}

// Call is what a tool learns of the call it runs: who called, with which
// arguments, and where to report progress. The loop builds one per call.
type Call struct {
	// ID is the model's id of the tool call ("call_…", "toolu_…"); empty
	// outside a turn (a mention's attachment, a test).
	ID string
	// Session is the id of the session the call belongs to; tools keep
	// their per-session state (what the model has read, the undo journal)
	// under it. Empty outside a session.
	Session string
	// Args are the call's JSON arguments (an object).
	Args json.RawMessage
	// Progress, when not nil, takes the call's progress while it runs (for
	// bash, the last lines of its output). It is safe to call from any
	// goroutine and never blocks for long; a tool may call it as often as it
	// likes, and the receiver keeps only what it can show.
	Progress func(Progress)
}

// Report hands p to the call's Progress, when it has one.
func (c Call) Report(p Progress) {
	if c.Progress != nil {
		c.Progress(p)
	}
}

// Progress is a running call's state for people: it replaces the one
// reported before it (it is a status, not a delta).
type Progress struct {
	// Text is what to show: for bash, its last lines of output; for a
	// subagent, what it does now. At most a few lines.
	Text string
	// Detail carries structured progress for front-ends that know its
	// type (a subagent's wrapped loop events); nil for most tools.
	Detail any
}

// Kind says how front-ends show a tool's calls. The names are those of the
// Agent Client Protocol's ToolKind (agentclientprotocol.com, schema
// "ToolKind"), so ACP sends them as they are.
type Kind string

// The kinds of tools.
const (
	KindRead    Kind = "read"
	KindEdit    Kind = "edit"
	KindDelete  Kind = "delete"
	KindMove    Kind = "move"
	KindSearch  Kind = "search"
	KindExecute Kind = "execute"
	KindThink   Kind = "think"
	KindFetch   Kind = "fetch"
	KindOther   Kind = "other"
)

// Summary is how a call reads in one line, for a tool block's title, a
// progress line and an approval question.
type Summary struct {
	// Title is the call's main argument on one line: a command's first
	// line, a path, a pattern and where it is searched.
	Title string
	// Full is the text an approval question shows whole: the command, or
	// the arguments as indented JSON.
	Full string
	// Paths are the files or directories the call works on, relative to
	// the working directory (ACP's tool call locations); nil when none.
	Paths []string
	// Hosts are the host names the call reaches over the network,
	// lowercase without port (web_fetch's URL's); the approval's domain
	// rules judge them. Nil when none.
	Hosts []string
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
	// Kind is how front-ends show the tool's calls; empty is KindOther.
	Kind Kind
	// Summarize, when not nil, says how a call with these (raw, possibly
	// invalid) arguments reads in one line; nil uses DefaultSummary.
	Summarize func(args string) Summary
	// ChangesToolset marks the tool whose call changes which tools the
	// next request offers (pick_tools): its calls run alone, and
	// front-ends show them as a note rather than as a tool block.
	ChangesToolset bool
}

// Summary says how a call of the tool with the raw arguments args reads in
// one line (Summarize, or DefaultSummary when the tool has none).
func (d Definition) Summary(args string) Summary {
	if d.Summarize != nil {
		return d.Summarize(args)
	}
	return DefaultSummary(args)
}

// KindOrOther is the tool's Kind, KindOther when it declares none.
func (d Definition) KindOrOther() Kind {
	if d.Kind == "" {
		return KindOther
	}
	return d.Kind
}

// DefaultSummary reads the usual main arguments of a call (command, path,
// pattern, url, query, in that order) from a JSON object; its Full is the
// arguments as indented JSON. Arguments that are not a JSON object read as
// themselves on one line: a model may write anything.
func DefaultSummary(args string) Summary {
	var a map[string]any
	if err := json.Unmarshal([]byte(args), &a); err != nil {
		return Summary{Title: OneLine(args), Full: args}
	}
	full := PrettyJSON(args)
	for _, k := range []string{"command", "path", "pattern", "url", "query", "description", "name"} {
		if s, ok := a[k].(string); ok && s != "" {
			return Summary{Title: OneLine(s), Full: full}
		}
	}
	return Summary{Title: OneLine(args), Full: full}
}

// OneLine joins s onto one line: runs of white space, line breaks included,
// become one space.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// PrettyJSON indents valid JSON by two spaces and returns anything else
// unchanged.
func PrettyJSON(raw string) string {
	var buf bytes.Buffer
	if json.Indent(&buf, []byte(raw), "", "  ") != nil {
		return raw
	}
	return buf.String()
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
	// Images are pictures the model sees after Content (a screenshot an
	// MCP server returns, an image file read); nil for most tools. A
	// provider or model that takes no images gets a description instead.
	Images []Image
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
	Preview(ctx context.Context, call Call) (Result, error)
}

// Image is a picture in a tool's result.
type Image struct {
	// MediaType is its MIME type: image/png, image/jpeg, image/gif or
	// image/webp.
	MediaType string
	// Data is the encoded image, as the file holds it.
	Data []byte
}
