package sdkstream

import (
	"context"
	"strings"
	"testing"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/lsp"
	"github.com/agent-dev/agent/turn"
)

// The Claude Agent SDK's protocol carries the diagnostics an edit
// introduced with the tool result, as the model read them: the
// tool_result block's content ends with the <diagnostics> block.
func TestToolResultCarriesDiagnostics(t *testing.T) {
	rep := lsp.Report{New: []lsp.Diagnostic{{Path: "b.go", Line: 7, Column: 9, Severity: "error", Message: "undefined: helper"}},
		Checked: []string{"gopls"}}
	editing := func(context.Context, turn.Prompt) <-chan loop.Event {
		ch := make(chan loop.Event, 8)
		ch <- loop.StepStarted{Step: 1}
		ch <- loop.ToolCallStarted{ID: "e1", Name: "edit_file", Arguments: `{"path":"a.go","old_string":"a","new_string":"b"}`}
		ch <- loop.ToolCallFinished{ID: "e1", Name: "edit_file", Content: "Edited a.go" + rep.Text(), Meta: map[string]any{"diagnostics": rep}}
		ch <- loop.Done{Answer: "done", Reason: loop.StopAnswered, Steps: 2}
		close(ch)
		return ch
	}
	h := newHost(t, Config{Turn: editing})
	h.send(user("edit"))
	for _, m := range h.until("result") {
		if m["type"] != "user" {
			continue
		}
		block := m["message"].(map[string]any)["content"].([]any)[0].(map[string]any)
		content, _ := block["content"].(string)
		if block["tool_use_id"] != "e1" || !strings.Contains(content, "<diagnostics>") || !strings.Contains(content, "b.go:7:9: error: undefined: helper") {
			t.Errorf("tool_result %v does not carry the diagnostics", block)
		}
		return
	}
	t.Error("no tool_result")
}
