package acp

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/lsp"
	"github.com/agent-dev/agent/tools"
)

// maxContent bounds the text of a tool result sent in a tool_call_update;
// the model still gets the whole result.
const maxContent = 64 << 10

// translator turns one turn's loop events into session/update payloads.
// It remembers, for each edit call, the file's text before the call, so
// that the call's update carries a diff of old and new text.
type translator struct {
	sess Session
	cwd  string
	// before is the text of an edit call's file before it ran, by call id.
	before map[string]fileBefore
	// open are the calls started and not finished, in order.
	open []string
}

type fileBefore struct {
	path string
	text *string // nil: the file did not exist
}

func newTranslator(sess Session, cwd string) *translator {
	return &translator{sess: sess, cwd: cwd, before: map[string]fileBefore{}}
}

// updates are the updates of one event (none for most events but the
// stream's and the calls').
func (t *translator) updates(ev loop.Event) []sdk.SessionUpdate {
	switch ev := ev.(type) {
	case loop.TextDelta:
		return []sdk.SessionUpdate{sdk.UpdateAgentMessageText(ev.Text)}
	case loop.ReasoningDelta:
		return []sdk.SessionUpdate{sdk.UpdateAgentThoughtText(ev.Text)}
	case loop.ToolCallStarted:
		t.open = append(t.open, ev.ID)
		return []sdk.SessionUpdate{t.started(ev)}
	case loop.ToolProgress:
		if ev.Text == "" {
			return nil
		}
		return []sdk.SessionUpdate{sdk.UpdateToolCall(sdk.ToolCallId(ev.ID), sdk.WithUpdateStatus(sdk.ToolCallStatusInProgress),
			sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(ev.Text))}))}
	case loop.ToolCallFinished:
		t.open = slices.DeleteFunc(t.open, func(id string) bool { return id == ev.ID })
		return t.finished(ev)
	case loop.FellBack:
		// ACP has no notice: a thought the editor shows apart from the answer.
		return []sdk.SessionUpdate{sdk.UpdateAgentThoughtText(fallbackNote(ev))}
	}
	return nil
}

// fallbackNote is the line that tells a person a turn moved to a fallback
// model.
func fallbackNote(ev loop.FellBack) string {
	note := fmt.Sprintf("\n%s failed after its retries (%s): this turn goes on with %s.", ev.From, ev.Err, ev.To)
	if ev.Discarded {
		note += " The partial answer so far is discarded."
	}
	return note + "\n"
}

// unfinished are the last updates of the calls a turn started and never
// finished (it was cancelled, or failed, before they ran or while they
// ran): each failed, saying why, so that no editor shows one as pending
// after the prompt's answer.
func (t *translator) unfinished(why string) []sdk.SessionUpdate {
	var out []sdk.SessionUpdate
	for _, id := range t.open {
		out = append(out, sdk.UpdateToolCall(sdk.ToolCallId(id), sdk.WithUpdateStatus(sdk.ToolCallStatusFailed),
			sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(why))})))
	}
	t.open = nil
	return out
}

// started is a call's tool_call: title, kind, the files it works on and
// its arguments; pending until it finishes (approval comes after).
func (t *translator) started(ev loop.ToolCallStarted) sdk.SessionUpdate {
	if ev.Kind == tools.KindEdit && len(ev.Summary.Paths) == 1 {
		fb := fileBefore{path: ev.Summary.Paths[0]}
		if text, ok := t.sess.ReadFile(fb.path); ok {
			fb.text = &text
		}
		t.before[ev.ID] = fb
	}
	return startCall(t.cwd, ev.ID, ev.Name, ev.Summary, ev.Kind, json.RawMessage(ev.Arguments))
}

// startCall is a tool_call update.
func startCall(cwd, id, name string, sum tools.Summary, kind tools.Kind, args json.RawMessage) sdk.SessionUpdate {
	opts := []sdk.ToolCallStartOpt{sdk.WithStartKind(toolKind(kind)), sdk.WithStartStatus(sdk.ToolCallStatusPending)}
	if locs := locations(cwd, sum.Paths); len(locs) > 0 {
		opts = append(opts, sdk.WithStartLocations(locs))
	}
	if in := rawInput(args); in != nil {
		opts = append(opts, sdk.WithStartRawInput(in))
	}
	return sdk.StartToolCall(sdk.ToolCallId(id), title(name, sum), opts...)
}

// title is a call's title: the tool's name and the summary's title.
func title(name string, sum tools.Summary) string {
	if sum.Title == "" {
		return name
	}
	return name + ": " + sum.Title
}

// finished is a call's tool_call_update (completed or failed, an edit's
// diff, its result as text, and the diagnostics the change introduced as
// a further text block, whole however long the result), then a plan update for a todo list and a
// current_mode_update for an approved plan.
func (t *translator) finished(ev loop.ToolCallFinished) []sdk.SessionUpdate {
	status := sdk.ToolCallStatusCompleted
	if ev.IsError {
		status = sdk.ToolCallStatusFailed
	}
	var content []sdk.ToolCallContent
	if fb, ok := t.before[ev.ID]; ok && !ev.IsError {
		delete(t.before, ev.ID)
		if now, ok := t.sess.ReadFile(fb.path); ok {
			d := sdk.ToolDiffContent(filepath.Join(t.cwd, fb.path), now)
			if fb.text != nil {
				d.Diff.OldText = fb.text
			}
			content = append(content, d)
		}
	}
	text, diagnostics := ev.Content, ""
	if rep, ok := lsp.ReportOf(ev.Meta); ok {
		text, diagnostics = lsp.SplitText(ev.Content, rep)
	}
	content = append(content, sdk.ToolContent(sdk.TextBlock(cutText(text))))
	if diagnostics != "" { // never cut with a long output
		content = append(content, sdk.ToolContent(sdk.TextBlock(diagnostics)))
	}
	out := []sdk.SessionUpdate{sdk.UpdateToolCall(sdk.ToolCallId(ev.ID), sdk.WithUpdateStatus(status), sdk.WithUpdateContent(content))}
	if items, ok := tools.Todos(ev.Meta); ok && !ev.IsError {
		out = append(out, planUpdate(items))
	}
	if mode, ok := ev.Meta[tools.MetaPermissionMode].(string); ok && mode != "" {
		out = append(out, modeUpdate(mode))
	}
	return out
}

// planUpdate is a todo list as an ACP plan.
func planUpdate(items []tools.Todo) sdk.SessionUpdate {
	entries := make([]sdk.PlanEntry, len(items))
	for i, it := range items {
		status := sdk.PlanEntryStatusPending
		switch it.Status {
		case tools.TodoInProgress:
			status = sdk.PlanEntryStatusInProgress
		case tools.TodoCompleted:
			status = sdk.PlanEntryStatusCompleted
		}
		entries[i] = sdk.PlanEntry{Content: it.Content, Status: status, Priority: sdk.PlanEntryPriorityMedium}
	}
	return sdk.SessionUpdate{Plan: &sdk.SessionUpdatePlan{Entries: entries, SessionUpdate: "plan"}}
}

// toolKind is a tool's kind as ACP names it; the names are ACP's.
func toolKind(k tools.Kind) sdk.ToolKind {
	if k == "" {
		return sdk.ToolKindOther
	}
	return sdk.ToolKind(k)
}

// locations makes paths relative to cwd absolute.
func locations(cwd string, paths []string) []sdk.ToolCallLocation {
	var out []sdk.ToolCallLocation
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		out = append(out, sdk.ToolCallLocation{Path: p})
	}
	return out
}

// cutText cuts a result's text to maxContent bytes, at a line's end where
// one is near.
func cutText(s string) string {
	if len(s) <= maxContent {
		return s
	}
	cut := s[:maxContent]
	if i := strings.LastIndexByte(cut, '\n'); i > maxContent/2 {
		cut = cut[:i+1]
	}
	return cut + "\n[… cut for the editor; the model has the whole result]"
}
