package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/conversation"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/lsp"
	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/picker"
)

// testReport is what a language server says an edit introduced: two
// errors, five warnings and one more left out, and a note.
func testReport() lsp.Report {
	r := lsp.Report{More: 1, Checked: []string{"gopls"},
		Notes: []string{"gopls had not finished checking after 2s; diagnostics may be incomplete"}}
	r.New = append(r.New,
		lsp.Diagnostic{Path: "cmd/main.go", Line: 12, Column: 5, Severity: "error", Message: "undefined: runServer", Source: "compiler"},
		lsp.Diagnostic{Path: "cmd/serve.go", Line: 40, Column: 17, Severity: "error", Message: "not enough arguments in call to listen\n\thave (string)\n\twant (string, int)"})
	for i := range 5 {
		r.New = append(r.New, lsp.Diagnostic{Path: "cmd/main.go", Line: 20 + i, Column: 2, Severity: "warning", Message: fmt.Sprintf("unusedresult %d", i)})
	}
	return r
}

// An edit's block shows the diagnostics its change introduced under its
// diff: errors then warnings, path:line:col message, five then "+N more"
// (all when expanded), and the servers' notes; a command's block shows
// them under its output, whose <diagnostics> text is not shown twice, also
// when the report went through JSON (a resumed session).
func TestDiagnosticsBlockGoldens(t *testing.T) {
	st := goldenStyles()
	rep := testReport()
	var viaJSON map[string]any
	data, _ := json.Marshal(map[string]any{"diagnostics": rep, "exit_code": 0})
	_ = json.Unmarshal(data, &viaJSON)
	for _, w := range []int{50, 100} {
		edit := callBlock(st, "e1", "edit_file", `{"path":"cmd/main.go","old_string":"old","new_string":"new"}`)
		edit.finish("Edited cmd/main.go: +2 -2 lines"+rep.Text(), false, 4*time.Millisecond, map[string]any{"diff": testDiff(2), "path": "cmd/main.go", "diagnostics": rep})
		out := edit.Render(w)
		requireFits(t, out, w)
		requireGolden(t, fmt.Sprintf("toolblock_diagnostics_folded_%d", w), out)
		edit.setExpanded(true)
		requireGolden(t, fmt.Sprintf("toolblock_diagnostics_expanded_%d", w), edit.Render(w))

		bash := callBlock(st, "b1", "bash", `{"command":"sed -i s/a/b/ cmd/main.go"}`)
		bash.finish("(no output)"+rep.Text(), false, 30*time.Millisecond, viaJSON)
		out = bash.Render(w)
		requireGolden(t, fmt.Sprintf("toolblock_diagnostics_command_%d", w), out)
		if strings.Contains(out, "<diagnostics>") || !strings.Contains(out, "✗ cmd/main.go:12:5 undefined: runServer") {
			t.Errorf("command block at %d:\n%s", w, out)
		}
	}
	for _, dark := range []bool{true, false} {
		b := callBlock(newStyles(dark), "e1", "edit_file", `{"path":"cmd/main.go"}`)
		b.finish("Edited", false, 0, map[string]any{"diagnostics": rep})
		for width := 1; width <= 120; width++ {
			requireFits(t, b.Render(width), width)
		}
	}
}

// A result whose report is empty (nothing new, no note) shows nothing more.
func TestNoDiagnosticsNoLines(t *testing.T) {
	b := callBlock(goldenStyles(), "e1", "write_file", `{"path":"a.go"}`)
	b.finish("Wrote a.go", false, 0, map[string]any{"diagnostics": lsp.Report{Checked: []string{"gopls"}}})
	if got := b.Render(60); strings.Count(got, "\n") != 1 || !strings.Contains(got, "Wrote a.go") {
		t.Errorf("block with an empty report:\n%s", got)
	}
}

// The status line counts the session's diagnostics when there are any.
func TestStatusDiagnostics(t *testing.T) {
	s := statusCases(goldenStyles())["full"]
	s.errors, s.warnings = 2, 5
	for _, w := range []int{50, 100} {
		requireGolden(t, fmt.Sprintf("status_diagnostics_%d", w), s.Render(w))
	}
	s.errors = 0
	if got := s.Render(100); !strings.Contains(got, "⚠ 5") || strings.Contains(got, "✗") {
		t.Errorf("warnings only: %q", got)
	}
}

// /lsp lists each language server: its state, root, files and
// diagnostics, its command and where it comes from, and why one does not
// run; with none, where servers come from. /help lists /lsp.
func TestLSPCommand(t *testing.T) {
	states := []lsp.State{
		{Name: "gopls", Command: "gopls", Root: ".", State: "running", Files: 3, Errors: 2, Warnings: 5, Source: "PATH"},
		{Name: "pyright", Command: "pyright-langserver", Root: ".", State: "not started", Source: "PATH"},
		{Name: "tsserver", Command: "node", Root: "web", State: "gave up", Restarts: 3, Files: 1, Source: ".lsp.json",
			Detail: "exit status 1: Cannot find module 'typescript'"},
		{Name: "zls", Command: "zls", Root: ".", State: "not trusted", Source: ".lsp.json",
			Detail: "zls from .lsp.json: refused by the person"},
	}
	for _, w := range []int{50, 100} {
		requireGolden(t, fmt.Sprintf("lsp_command_%d", w), newNoteItem(goldenStyles(), lspNote(states)).Render(w))
	}

	cfg := config(t, fake.New(), t.TempDir(), nil)
	d := newDriver(t, cfg)
	d.typeAndSend("/lsp")
	d.untilShows("No language servers: none of gopls, typescript-language-server")

	cfg.LanguageServers = func() []lsp.State { return states }
	d = newDriver(t, cfg)
	d.typeAndSend("/lsp")
	d.untilShows("tsserver: gave up in web")
	d.untilShows("exit status 1: Cannot find module 'typescript'")
	d.typeAndSend("/help")
	d.untilShows("show the language servers")
}

// Through a turn: the model changes a file with a command, the result carries the
// diagnostics the change introduced (as host's lspNotes adds them), and
// the screen shows them under the edit's block, not the <diagnostics>
// text; the status line shows the session's count once the result is in.
func TestEditDiagnosticsOnScreen(t *testing.T) {
	dir := t.TempDir()
	srv := fake.New(
		fake.ToolCalls(fake.Call{ID: "b1", Name: "bash", Arguments: `{"command":"echo package main > main.go"}`}),
		fake.Text("written"))
	reg := toolRegistry(t, dir)
	set := picker.New(reg, picker.ModePick)
	rep := testReport()
	after := func(_ context.Context, c loop.AfterCall) tools.Result {
		res := c.Result
		res.Content += rep.Text()
		meta := map[string]any{"diagnostics": rep}
		for k, v := range res.Meta {
			meta[k] = v
		}
		res.Meta = meta
		return res
	}
	var errs, warns int
	cfg := config(t, srv, dir, nil)
	cfg.Session = &Session{ID: "s1", Conv: conversation.New("", nil), NewLoop: func(model string) (*loop.Loop, error) {
		return loop.New(loop.Config{Provider: srv, Model: model, Catalog: set, AfterCall: after,
			Approve: func(context.Context, loop.Approval) loop.Decision {
				errs, warns = 2, 5
				return loop.Decision{Allow: true}
			}})
	}}
	cfg.Diagnostics = func() (int, int) { return errs, warns }
	d := newDriver(t, cfg)
	d.typeAndSend("write main.go")
	d.untilShows("written")
	screen := d.screen()
	for _, want := range []string{"✗ cmd/main.go:12:5 undefined: runServer", "⚠ cmd/main.go:20:2 unusedresult 0", "+3 more diagnostics",
		"gopls had not finished checking after 2s", "✗ 2 ⚠ 5"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the screen does not show %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, "<diagnostics>") {
		t.Errorf("the screen shows the model's <diagnostics> text:\n%s", screen)
	}
}
