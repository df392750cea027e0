package markdown

import (
	"strconv"

	xansi "github.com/charmbracelet/x/ansi"
)

func itoa(i int) string         { return strconv.Itoa(i) }
func quote(s string) string     { return strconv.Quote(s) }
func visibleWidth(s string) int { return xansi.StringWidth(s) }
