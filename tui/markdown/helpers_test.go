package markdown

import (
	"strconv"
	"time"

	xansi "github.com/charmbracelet/x/ansi"

	"github.com/agent-dev/agent/tui/markdown/highlight"
)

// testRenderer is NewRenderer whose highlighting budget is measured on a
// clock that stands still: what the tests see never depends on how busy
// the machine is.
func testRenderer(style Style) *Renderer {
	r := NewRenderer(style)
	r.hl.budget = stillBudget()
	return r
}

// stillBudget is the interface's highlighting budget on a clock that never
// moves.
func stillBudget() highlight.Budget {
	return highlight.Budget{Limit: highlight.DefaultLimit, Now: func() time.Time { return time.Unix(0, 0) }}
}

func itoa(i int) string         { return strconv.Itoa(i) }
func quote(s string) string     { return strconv.Quote(s) }
func visibleWidth(s string) int { return xansi.StringWidth(s) }
