package markdown

import (
	"strconv"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
)

// TestGolden pins the rendering of the fixture in the dark style at two
// widths; run with -update to regenerate testdata/TestGolden/*.golden.
func TestGolden(t *testing.T) {
	fixture := readFixture(t)
	r := testRenderer(Dark)
	for _, w := range []int{40, 100} {
		t.Run("dark-"+strconv.Itoa(w), func(t *testing.T) {
			golden.RequireEqual(t, r.Render(fixture, w))
		})
	}
}
