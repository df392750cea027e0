package acp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/lsp"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/turn"
)

// fakeSession is a Session whose files are a map.
type fakeSession struct {
	files   map[string]string
	history []providers.Message
}

func (f *fakeSession) ID() string                                          { return "s" }
func (f *fakeSession) Turn(context.Context, turn.Prompt) <-chan loop.Event { return nil }
func (f *fakeSession) Mode() string                                        { return "ask" }
func (f *fakeSession) SetMode(string) error                                { return nil }
func (f *fakeSession) History() []providers.Message                        { return f.history }
func (f *fakeSession) Close()                                              {}
func (f *fakeSession) Describe(name, args string) (tools.Summary, tools.Kind) {
	if name == "bash" {
		return tools.Summary{Title: "ls"}, tools.KindExecute
	}
	return tools.DefaultSummary(args), tools.KindOther
}
func (f *fakeSession) ReadFile(rel string) (string, bool) {
	s, ok := f.files[rel]
	return s, ok
}

// TestEditCarriesItsDiff: an edit's update carries the file's text before
// and after the call, with an absolute path; a new file has no old text.
func TestEditCarriesItsDiff(t *testing.T) {
	sess := &fakeSession{files: map[string]string{"a.go": "old\n"}}
	tr := newTranslator(sess, "/w")
	start := tr.updates(loop.ToolCallStarted{ID: "e1", Name: "edit_file", Arguments: `{"path":"a.go"}`, Kind: tools.KindEdit,
		Summary: tools.Summary{Title: "a.go", Paths: []string{"a.go"}}})
	tc := start[0].ToolCall
	if tc == nil || tc.Kind != sdk.ToolKindEdit || tc.Status != sdk.ToolCallStatusPending || len(tc.Locations) != 1 || tc.Locations[0].Path != "/w/a.go" {
		t.Fatalf("tool_call %+v", start[0])
	}
	sess.files["a.go"] = "new\n"
	up := tr.updates(loop.ToolCallFinished{ID: "e1", Name: "edit_file", Content: "edited", Kind: tools.KindEdit})[0].ToolCallUpdate
	if up == nil || *up.Status != sdk.ToolCallStatusCompleted || len(up.Content) != 2 {
		t.Fatalf("update %+v", up)
	}
	d := up.Content[0].Diff
	if d == nil || d.Path != "/w/a.go" || d.NewText != "new\n" || d.OldText == nil || *d.OldText != "old\n" {
		t.Errorf("diff %+v", d)
	}

	tr.updates(loop.ToolCallStarted{ID: "e2", Name: "write_file", Kind: tools.KindEdit, Summary: tools.Summary{Paths: []string{"b.go"}}})
	sess.files["b.go"] = "made\n"
	up = tr.updates(loop.ToolCallFinished{ID: "e2", Name: "write_file", Kind: tools.KindEdit})[0].ToolCallUpdate
	if d := up.Content[0].Diff; d == nil || d.OldText != nil || d.NewText != "made\n" {
		t.Errorf("a new file's diff %+v", d)
	}
}

// TestTodoListIsAPlan: a todo_write result becomes a plan update; a failed
// call is marked failed.
func TestTodoListIsAPlan(t *testing.T) {
	tr := newTranslator(&fakeSession{}, "/w")
	ups := tr.updates(loop.ToolCallFinished{ID: "t", Name: "todo_write", Meta: map[string]any{tools.MetaTodos: []tools.Todo{
		{Content: "read", Status: tools.TodoCompleted}, {Content: "write", Status: tools.TodoInProgress}, {Content: "test", Status: tools.TodoPending}}}})
	if len(ups) != 2 || ups[1].Plan == nil {
		t.Fatalf("updates %+v", ups)
	}
	var got []sdk.PlanEntryStatus
	for _, e := range ups[1].Plan.Entries {
		got = append(got, e.Status)
	}
	if len(got) != 3 || got[0] != sdk.PlanEntryStatusCompleted || got[1] != sdk.PlanEntryStatusInProgress || got[2] != sdk.PlanEntryStatusPending {
		t.Errorf("plan statuses %v", got)
	}
	if up := tr.updates(loop.ToolCallFinished{ID: "x", IsError: true, Content: "boom"})[0].ToolCallUpdate; *up.Status != sdk.ToolCallStatusFailed {
		t.Errorf("failed call's status %v", *up.Status)
	}
}

func TestPromptResponse(t *testing.T) {
	for reason, want := range map[loop.StopReason]sdk.StopReason{
		loop.StopAnswered: sdk.StopReasonEndTurn, loop.StopCancelled: sdk.StopReasonCancelled,
		loop.StopMaxSteps: sdk.StopReasonMaxTurnRequests, loop.StopMaxTokens: sdk.StopReasonMaxTokens,
		loop.StopContextFull: sdk.StopReasonMaxTokens, loop.StopRefused: sdk.StopReasonRefusal,
	} {
		if r, err := promptResponse(loop.Done{Reason: reason}); err != nil || r.StopReason != want {
			t.Errorf("%s: %v, %v; want %s", reason, r.StopReason, err, want)
		}
	}
	if _, err := promptResponse(loop.Done{Reason: loop.StopError, Err: errors.New("provider down")}); err == nil {
		t.Error("a failed turn must be an error response")
	}
}

func TestToPrompt(t *testing.T) {
	p, err := toPrompt([]sdk.ContentBlock{sdk.TextBlock("look at @main.go"), sdk.ResourceLinkBlock("spec", "file:///w/spec.md"),
		{Resource: &sdk.ContentBlockResource{Type: "resource", Resource: sdk.EmbeddedResourceResource{TextResourceContents: &sdk.TextResourceContents{Uri: "file:///w/x.go", Text: "package x"}}}},
		sdk.ImageBlock("aGk=", "image/png")})
	if err != nil {
		t.Fatal(err)
	}
	parts := p.Message.Parts
	if len(parts) != 4 || p.Typed != "look at @main.go" {
		t.Fatalf("prompt %+v", p)
	}
	if img, ok := parts[3].(providers.Image); !ok || string(img.Data) != "hi" || img.MediaType != "image/png" {
		t.Errorf("image part %+v", parts[3])
	}
	if txt := parts[2].(providers.Text).Text; txt != "<resource uri=\"file:///w/x.go\">\npackage x\n</resource>" {
		t.Errorf("embedded resource %q", txt)
	}
	if _, err := toPrompt([]sdk.ContentBlock{{Audio: &sdk.ContentBlockAudio{Type: "audio"}}}); err == nil {
		t.Error("audio must be refused")
	}
	if _, err := toPrompt(nil); err == nil {
		t.Error("an empty prompt must be refused")
	}
}

// TestReplay: a stored conversation comes back as the updates that showed
// it, calls with their kind from the session's tools.
func TestReplay(t *testing.T) {
	sess := &fakeSession{history: []providers.Message{
		{Role: providers.RoleUser, Parts: []providers.Part{providers.Text{Text: "list"}}},
		{Role: providers.RoleAssistant, Parts: []providers.Part{providers.Reasoning{Text: "hmm"}, providers.ToolCall{ID: "c", Name: "bash", Arguments: `{"command":"ls"}`}}},
		{Role: providers.RoleTool, Parts: []providers.Part{providers.ToolResult{CallID: "c", Name: "bash", Content: "a.go"}}},
		{Role: providers.RoleAssistant, Parts: []providers.Part{providers.Text{Text: "one file"}}},
	}}
	ups := replay(sess, "/w")
	b, _ := json.Marshal(ups)
	var kinds []string
	var got []map[string]any
	_ = json.Unmarshal(b, &got)
	for _, u := range got {
		kinds = append(kinds, u["sessionUpdate"].(string))
	}
	want := []string{"user_message_chunk", "agent_thought_chunk", "tool_call", "tool_call_update", "agent_message_chunk"}
	if len(kinds) != len(want) {
		t.Fatalf("updates %v, want %v", kinds, want)
	}
	for i := range want {
		if kinds[i] != want[i] {
			t.Fatalf("updates %v, want %v", kinds, want)
		}
	}
	if got[2]["kind"] != "execute" || got[2]["title"] != "bash: ls" {
		t.Errorf("replayed call %v", got[2])
	}
}

// TestUnfinishedCallsEndFailed: the calls a turn started and never
// finished get a last update, failed with the reason; finished ones do
// not, and none is reported twice.
func TestUnfinishedCallsEndFailed(t *testing.T) {
	tr := newTranslator(&fakeSession{}, "/w")
	for _, id := range []string{"a", "b", "c"} {
		tr.updates(loop.ToolCallStarted{ID: id, Name: "bash", Arguments: `{"command":"ls"}`, Kind: tools.KindExecute})
	}
	tr.updates(loop.ToolCallFinished{ID: "b", Name: "bash", Content: "ok", Kind: tools.KindExecute})
	ups := tr.unfinished("not run: the turn was cancelled")
	var ids []string
	for _, u := range ups {
		up := u.ToolCallUpdate
		if up == nil || *up.Status != sdk.ToolCallStatusFailed || len(up.Content) != 1 || up.Content[0].Content.Content.Text == nil ||
			up.Content[0].Content.Content.Text.Text != "not run: the turn was cancelled" {
			t.Fatalf("update %+v", u)
		}
		ids = append(ids, string(up.ToolCallId))
	}
	if len(ids) != 2 || ids[0] != "a" || ids[1] != "c" {
		t.Errorf("unfinished calls %v, want a and c", ids)
	}
	if again := tr.unfinished("x"); len(again) != 0 {
		t.Errorf("reported twice: %+v", again)
	}
}

// TestEditCarriesItsDiagnostics: the diagnostics an edit introduced reach
// the editor with the tool_call_update, after the diff and the result, as
// a text block of their own that a long result's cut never drops.
func TestEditCarriesItsDiagnostics(t *testing.T) {
	rep := lsp.Report{New: []lsp.Diagnostic{{Path: "b.go", Line: 7, Column: 9, Severity: "error", Message: "undefined: helper"}},
		Checked: []string{"gopls"}}
	sess := &fakeSession{files: map[string]string{"a.go": "old\n"}}
	tr := newTranslator(sess, "/w")
	tr.updates(loop.ToolCallStarted{ID: "e1", Name: "edit_file", Kind: tools.KindEdit, Summary: tools.Summary{Paths: []string{"a.go"}}})
	sess.files["a.go"] = "new\n"
	up := tr.updates(loop.ToolCallFinished{ID: "e1", Name: "edit_file", Content: "edited" + rep.Text(), Kind: tools.KindEdit,
		Meta: map[string]any{"diagnostics": rep}})[0].ToolCallUpdate
	if len(up.Content) != 3 || up.Content[0].Diff == nil {
		t.Fatalf("content %+v, want the diff, the result, the diagnostics", up.Content)
	}
	if got := up.Content[1].Content.Content.Text.Text; got != "edited" {
		t.Errorf("result block %q", got)
	}
	if got := up.Content[2].Content.Content.Text.Text; !strings.HasPrefix(got, "<diagnostics>\n") || !strings.Contains(got, "b.go:7:9: error: undefined: helper") {
		t.Errorf("diagnostics block %q", got)
	}

	long := strings.Repeat("output line\n", maxContent/6)
	up = tr.updates(loop.ToolCallFinished{ID: "b1", Name: "bash", Content: long + rep.Text(), Meta: map[string]any{"diagnostics": rep}})[0].ToolCallUpdate
	if n := len(up.Content); n != 2 || !strings.Contains(up.Content[1].Content.Content.Text.Text, "undefined: helper") {
		t.Errorf("a long command's update lost its diagnostics: %d blocks", n)
	}
}

// A fallback to another model reaches the editor as a thought naming both
// models, apart from the answer.
func TestAFallbackIsAThought(t *testing.T) {
	tr := newTranslator(&fakeSession{}, "/w")
	ups := tr.updates(loop.FellBack{From: "big", To: "small", Err: "the model server answered HTTP 529: Overloaded"})
	if len(ups) != 1 || ups[0].AgentThoughtChunk == nil {
		t.Fatalf("updates %+v", ups)
	}
	text := ups[0].AgentThoughtChunk.Content.Text.Text
	if !strings.Contains(text, "big failed after its retries") || !strings.Contains(text, "goes on with small") {
		t.Errorf("thought %q", text)
	}
}
