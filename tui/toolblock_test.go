package tui

import (
	"fmt"
	"github.com/charmbracelet/x/ansi"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"
)

// Goldens of the components (toolblock_*, status_*, chatlist_*) are rendered
// with goldenStyles, a style set without colour or attributes, so that they
// read as what a NO_COLOR terminal shows; the layout is what they pin.
// Width tests also run with the coloured styles. Regenerate with
// go test ./tui -run 'ToolBlock|Status|ChatList' -update.

// goldenStyles is every style empty: plain text.
func goldenStyles() *styles { return &styles{} }

// goldenNamed gives a golden file the name we choose: testdata/NAME.golden.
type goldenNamed struct {
	testing.TB
	name string
}

func (g goldenNamed) Name() string { return g.name }

// requireGolden compares out with testdata/name.golden.
func requireGolden(t *testing.T, name, out string) {
	t.Helper()
	golden.RequireEqual(goldenNamed{t, name}, out)
}

// requireFits fails when out is not at most width cells on every line.
func requireFits(t *testing.T, out string, width int) {
	t.Helper()
	for i, l := range strings.Split(out, "\n") {
		if w := textWidth(l); w > width {
			t.Fatalf("line %d is %d cells wide, more than %d: %q", i, w, width, l)
		}
	}
}

func numbered(n int, format string) string {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf(format, i+1)
	}
	return strings.Join(lines, "\n")
}

// toolBlockCases are the states a block goes through, built fresh each time.
func toolBlockCases(st *styles) []struct {
	name  string
	block *toolBlock
} {
	running := callBlock(st, "c1", "bash", `{"command":"go test ./... && go vet ./...\necho done"}`)
	running.setFrame(3)

	folded := callBlock(st, "c2", "read_file", `{"path":"internal/server/handler.go"}`)
	folded.finish(numbered(40, "%d\tline of the handler with\ttabs"), false, 35*time.Millisecond, map[string]any{"lines": 40})

	expanded := callBlock(st, "c3", "grep", `{"pattern":"func (c \\*Client)","path":"internal","glob":"*.go"}`)
	expanded.finish(numbered(8, "internal/client.go:%d: func (c *Client) Do(ctx context.Context, req *Request) (*Response, error) {"), false, 120*time.Millisecond, nil)
	expanded.setExpanded(true)

	exit := callBlock(st, "c4", "bash", `{"command":"go test ./tui/"}`)
	exit.finish("--- FAIL: TestView (0.00s)\n    view_test.go:12: got 3 lines\nFAIL\nexit status 1", false, 2340*time.Millisecond, map[string]any{"exit_code": 1})

	failed := callBlock(st, "c5", "bash", `{"command":"sleep 300"}`)
	failed.finish("bash: timed out after 120000 ms; the command was stopped (signal: killed)", true, 2*time.Minute+50*time.Millisecond, map[string]any{"exit_code": -1, "timed_out": true})

	waiting := callBlock(st, "c6", "bash", `{"command":"rm -rf build/ dist/ && mkdir -p build && go build -trimpath -ldflags='-s -w -X main.version=1.2.3' -o build/agent ./cmd/agent\nls -la build"}`)
	waiting.setWaiting(true)
	waiting.setMenu(approvalView{choice: choiceSession, armed: true})

	// A question that appeared while the person typed: the menu waits.
	typing := callBlock(st, "c6", "bash", `{"command":"make build"}`)
	typing.setWaiting(true)

	instructing := callBlock(st, "c6", "bash", `{"command":"make build"}`)
	instructing.setWaiting(true)
	instructing.setMenu(approvalView{choice: choiceInstruct, armed: true, instructing: true, text: "run go build ./... instead, make is not set up here"})

	denied := callBlock(st, "c7", "bash", `{"command":"git push --force origin main"}`)
	denied.finish("the user did not allow this bash call", true, 0, map[string]any{"denied": true})

	selected := callBlock(st, "c8", "list_files", `{"path":"tui","pattern":"**/*.go"}`)
	selected.finish("tui/chatlist.go\ntui/item.go\ntui/theme.go\ntui/toolblock.go\ntui/status.go", false, 4*time.Millisecond, map[string]any{"count": 5})
	selected.setSelected(true)

	empty := callBlock(st, "c9", "bash", `{"command":"true"}`)
	empty.finish("", false, 3*time.Millisecond, map[string]any{"exit_code": 0})

	return []struct {
		name  string
		block *toolBlock
	}{
		{"running", running},
		{"folded", folded},
		{"expanded", expanded},
		{"exit_status", exit},
		{"failed", failed},
		{"waiting", waiting},
		{"waiting_typing", typing},
		{"waiting_instructions", instructing},
		{"denied", denied},
		{"selected", selected},
		{"no_output", empty},
	}
}

func TestToolBlockGolden(t *testing.T) {
	for _, width := range []int{50, 100} {
		for _, tc := range toolBlockCases(goldenStyles()) {
			t.Run(fmt.Sprintf("%s_%d", tc.name, width), func(t *testing.T) {
				out := tc.block.Render(width)
				requireFits(t, out, width)
				requireGolden(t, fmt.Sprintf("toolblock_%s_%d", tc.name, width), out)
			})
		}
	}
}

func TestToolBlockFitsEveryWidth(t *testing.T) {
	for _, dark := range []bool{true, false} {
		for _, tc := range toolBlockCases(newStyles(dark)) {
			tc.block.setExpanded(true)
			for width := 1; width <= 120; width++ {
				requireFits(t, tc.block.Render(width), width)
			}
		}
	}
}

func TestToolBlockExpandedCap(t *testing.T) {
	b := callBlock(goldenStyles(), "c", "bash", `{"command":"seq 250"}`)
	b.finish(numbered(250, "%d"), false, time.Second, nil)
	folded := strings.Split(b.Render(80), "\n")
	if len(folded) != 1+foldedLines+1 || !strings.Contains(folded[len(folded)-1], "… +247 lines") {
		t.Fatalf("folded block:\n%s", strings.Join(folded, "\n"))
	}
	b.setExpanded(true)
	lines := strings.Split(b.Render(80), "\n")
	if len(lines) != 1+expandedLines+1 {
		t.Fatalf("expanded block has %d lines, want %d", len(lines), 1+expandedLines+1)
	}
	if got := lines[len(lines)-1]; !strings.Contains(got, "50 more lines not shown") {
		t.Fatalf("last line %q, want the count of the lines not shown", got)
	}
	if got := lines[expandedLines]; strings.TrimSpace(got) != "200" {
		t.Fatalf("line %d is %q, want 200", expandedLines, got)
	}
}

func TestToolBlockCacheInvalidation(t *testing.T) {
	b := callBlock(goldenStyles(), "c", "bash", `{"command":"ls"}`)
	b.setFrame(0)
	spin0 := b.Render(40)
	b.setFrame(1)
	if spin1 := b.Render(40); spin1 == spin0 {
		t.Fatalf("spinner frame did not change the render: %q", spin1)
	}
	b.setWaiting(true)
	if !strings.Contains(b.Render(40), "Allow bash to run this command?") {
		t.Fatalf("waiting block without the question:\n%s", b.Render(40))
	}
	b.finish(strings.Repeat("long ", 20)+"\nb\nc\nd", false, 10*time.Millisecond, nil)
	done := b.Render(40)
	if strings.Contains(done, "Allow") || !strings.Contains(done, "✓ bash ls  10ms") {
		t.Fatalf("finished block:\n%s", done)
	}
	b.setSelected(true)
	if sel := b.Render(40); !strings.HasPrefix(sel, "▌") {
		t.Fatalf("selected block without marker:\n%s", sel)
	}
	if b.Render(60) == b.Render(40) {
		t.Fatalf("the render did not follow the width")
	}
}

// TestCallsReadAsTheirToolsSummariseThem checks the titles of tool blocks,
// which come from each tool's definition, never from a name in the
// interface.
func TestCallsReadAsTheirToolsSummariseThem(t *testing.T) {
	tests := []struct {
		name, tool, args, summary string
	}{
		{"read_file", "read_file", `{"path":"go.mod","offset":3}`, "go.mod"},
		{"list_files default", "list_files", `{}`, "."},
		{"list_files pattern", "list_files", `{"pattern":"*.md","path":"docs"}`, "*.md in docs"},
		{"grep", "grep", `{"pattern":"TODO"}`, "TODO"},
		{"grep path glob", "grep", `{"pattern":"TODO","path":"cmd","glob":"*.go"}`, "TODO in cmd (*.go)"},
		{"bash first line", "bash", `{"command":"  make\tall\nmake test"}`, "make all …"},
		{"pick_tools", "pick_tools", `{"names":["grep","read_file"]}`, "grep, read_file"},
		{"unknown tool with path", "write_file", `{"path":"a.txt","content":"x"}`, "a.txt"},
		{"unknown tool with url", "fetch", `{"url":"https://example.com"}`, "https://example.com"},
		{"unknown tool", "fetch", `{"limit":3}`, `{"limit":3}`},
		{"broken JSON", "bash", "{\"command\":\"ls\n", `{"command":"ls`},
		{"bash without command", "bash", `{}`, `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := callBlock(goldenStyles(), "c", tt.tool, tt.args).summary; got != tt.summary {
				t.Fatalf("summary %q, want %q", got, tt.summary)
			}
		})
	}
}

func TestFormatDuration(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0ms"},
		{35 * time.Millisecond, "35ms"},
		{999 * time.Millisecond, "999ms"},
		{1200 * time.Millisecond, "1.2s"},
		{12340 * time.Millisecond, "12.3s"},
		{125 * time.Second, "2m05s"},
		{3720 * time.Second, "1h02m"},
	}
	for _, tt := range tests {
		if got := formatDuration(tt.d); got != tt.want {
			t.Errorf("formatDuration(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

func TestOutputLines(t *testing.T) {
	lines, total := outputLines("\x1b[31mred\x1b[0m\na\tb\nprogress 10%\rprogress 100%\n\x07bell\n\n\n", 3)
	want := []string{"red", "a   b", "progress 100%"}
	if total != 4 || strings.Join(lines, "|") != strings.Join(want, "|") {
		t.Fatalf("outputLines = %q, %d; want %q, 4", lines, total, want)
	}
}

func TestNoteAndErrorItems(t *testing.T) {
	st := goldenStyles()
	note := newNoteItem(st, "picked grep, read_file")
	if got := note.Render(80); got != "  picked grep, read_file" {
		t.Fatalf("note = %q", got)
	}
	if got := note.Render(12); got != "  picked\n  grep,\n  read_file" {
		t.Fatalf("narrow note = %q", got)
	}
	help := newNoteItem(st, "/help  show the keys\n/new   a fresh conversation")
	if got := help.Render(80); got != "  /help  show the keys\n  /new   a fresh conversation" {
		t.Fatalf("note of two lines = %q", got)
	}
	e := newErrorItem(st, "provider unreachable: dial tcp 127.0.0.1:1: connect: connection refused")
	want := "  ✗ provider unreachable: dial tcp\n    127.0.0.1:1: connect: connection\n    refused"
	if got := e.Render(40); got != want {
		t.Fatalf("error item at 40:\n%s\nwant:\n%s", got, want)
	}
	for width := 1; width < 100; width++ {
		requireFits(t, newErrorItem(newStyles(true), "step limit reached (50 steps); say continue to go on").Render(width), width)
		requireFits(t, newNoteItem(newStyles(true), "cancelled").Render(width), width)
	}
}

func TestARunningCommandShowsItsLastLinesOfOutput(t *testing.T) {
	b := callBlock(goldenStyles(), "c", "bash", `{"command":"go test ./..."}`)
	b.setProgress("ok  pkg/a\nok  pkg/b\nok  pkg/c\nok  pkg/d\nok  pkg/e\n--- FAIL: TestX\x1b[31m")
	got := ansi.Strip(b.Render(60))
	if strings.Contains(got, "pkg/a") || !strings.Contains(got, "pkg/b") || !strings.Contains(got, "--- FAIL: TestX") {
		t.Fatalf("running block shows:\n%s", got)
	}
	if strings.Contains(b.Render(60), "\x1b[31m") {
		t.Errorf("the command's escape sequence reached the screen")
	}
	b.finish("ok\n", false, time.Second, nil)
	if got := ansi.Strip(b.Render(60)); strings.Contains(got, "FAIL") {
		t.Errorf("the finished block still shows the progress:\n%s", got)
	}
}
