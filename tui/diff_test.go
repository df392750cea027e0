package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func testDiff(lines int) string {
	var b strings.Builder
	b.WriteString("--- a/cmd/main.go\n+++ b/cmd/main.go\n@@ -10,4 +10,4 @@ func main() {\n")
	for i := range lines {
		fmt.Fprintf(&b, " \tcontext line %d\n-\told line %d\n+\tnew line %d\n", i, i, i)
	}
	return b.String()
}

func TestDiffBlockGoldens(t *testing.T) {
	st := goldenStyles()
	args := `{"path":"cmd/main.go","old_string":"old","new_string":"new"}`
	for _, w := range []int{50, 100} {
		done := callBlock(st, "e1", "edit_file", args)
		done.finish("Edited cmd/main.go: +12 -12 lines", false, 4*time.Millisecond, map[string]any{"diff": testDiff(12), "path": "cmd/main.go"})
		requireGolden(t, fmt.Sprintf("toolblock_diff_folded_%d", w), done.Render(w))
		done.setExpanded(true)
		requireGolden(t, fmt.Sprintf("toolblock_diff_expanded_%d", w), done.Render(w))

		asking := callBlock(st, "e2", "edit_file", args)
		asking.setDiff(testDiff(2))
		asking.setWaiting(true)
		asking.setMenu(approvalView{armed: true})
		requireGolden(t, fmt.Sprintf("toolblock_diff_waiting_%d", w), asking.Render(w))
	}
}

func TestFoldedDiffShowsTwentyLines(t *testing.T) {
	b := callBlock(goldenStyles(), "e", "edit_file", `{"path":"a.go"}`)
	b.finish("Edited a.go", false, 0, map[string]any{"diff": testDiff(12)}) // 3 headers + 36 lines
	lines := strings.Split(b.Render(100), "\n")
	if len(lines) != 1+diffFold+1 || !strings.Contains(lines[len(lines)-1], "+19 diff lines") {
		t.Errorf("folded diff has %d lines, last %q", len(lines), lines[len(lines)-1])
	}
	b.setExpanded(true)
	if n := len(strings.Split(b.Render(100), "\n")); n != 1+39 {
		t.Errorf("expanded diff has %d lines, want all 39 and the header", n)
	}
}
