package cmd

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/lsp"
)

// stream-json's tool_call_finished carries the diagnostics an edit
// introduced twice: as the model read them (the content's <diagnostics>
// block) and as data (meta.diagnostics: new, more, notes, checked).
func TestStreamJSONCarriesDiagnostics(t *testing.T) {
	rep := lsp.Report{New: []lsp.Diagnostic{{Path: "b.go", Line: 7, Column: 9, Severity: "error", Message: "undefined: helper", Source: "compiler"}},
		Notes: []string{"gopls had not finished checking after 2s; diagnostics may be incomplete"}, Checked: []string{"gopls"}}
	var out bytes.Buffer
	p := newPrinter(formatStreamJSON, &out, io.Discard, false)
	ev := loop.ToolCallFinished{ID: "e1", Name: "edit_file", Content: "Edited a.go: +1 -1 lines" + rep.Text(),
		Meta: map[string]any{"path": "a.go", "diff": "--- a/a.go\n+++ b/a.go\n", "diagnostics": rep}}
	if err := p.event(ev); err != nil {
		t.Fatal(err)
	}
	var obj struct {
		Type    string `json:"type"`
		Content string `json:"content"`
		Meta    struct {
			Diagnostics lsp.Report `json:"diagnostics"`
		} `json:"meta"`
	}
	if err := json.Unmarshal(out.Bytes(), &obj); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if obj.Type != "tool_call_finished" || !strings.Contains(obj.Content, "<diagnostics>\n") ||
		!strings.Contains(obj.Content, "b.go:7:9: error: undefined: helper (compiler)") {
		t.Errorf("the content does not carry the diagnostics: %s", out.String())
	}
	d := obj.Meta.Diagnostics
	if len(d.New) != 1 || d.New[0] != rep.New[0] || len(d.Notes) != 1 || d.Checked[0] != "gopls" {
		t.Errorf("meta.diagnostics = %+v, want %+v", d, rep)
	}
}
