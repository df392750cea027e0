package markdown

import (
	"strconv"
	"strings"

	"github.com/agent-dev/agent/tui/markdown/highlight"
)

// attrs is how a run of text is drawn: SGR attributes and a foreground and
// background colour, each a 256-colour index (0-255), a 24-bit colour
// (trueColour|0xRRGGBB) or -1 for the terminal's own. The zero value is
// not plain text (its colours are 0); use plain.
type attrs struct {
	fg, bg                          int32
	bold, italic, underline, strike bool
}

// trueColour marks a colour of attrs as 24-bit, its low 24 bits 0xRRGGBB.
const trueColour = 1 << 24

// appendColour appends the SGR parameters of colour c: base is "38" for
// the foreground, "48" for the background.
func appendColour(p []string, base string, c int32) []string {
	if c&trueColour != 0 {
		return append(p, base+";2;"+strconv.Itoa(int(c>>16&0xff))+";"+strconv.Itoa(int(c>>8&0xff))+";"+strconv.Itoa(int(c&0xff)))
	}
	return append(p, base+";5;"+strconv.Itoa(int(c)))
}

// plain is text drawn in the terminal's own style.
var plain = attrs{fg: -1, bg: -1}

// sgr returns the escape sequence that selects a, "" for plain text.
func (a attrs) sgr() string {
	var p []string
	if a.bold {
		p = append(p, "1")
	}
	if a.italic {
		p = append(p, "3")
	}
	if a.underline {
		p = append(p, "4")
	}
	if a.strike {
		p = append(p, "9")
	}
	if a.fg >= 0 {
		p = appendColour(p, "38", a.fg)
	}
	if a.bg >= 0 {
		p = appendColour(p, "48", a.bg)
	}
	if len(p) == 0 {
		return ""
	}
	return "\x1b[" + strings.Join(p, ";") + "m"
}

// reset ends every attribute an sgr sequence selected.
const reset = "\x1b[m"

// paint returns text drawn with a: text alone for plain text, else its
// escape sequence, the text and a reset, so no style crosses a line.
func paint(text string, a attrs) string {
	if text == "" {
		return ""
	}
	s := a.sgr()
	if s == "" {
		return text
	}
	return s + text + reset
}

// palette is a Style's choice of attributes for each element. Dark's and
// Light's colours are glamour's "dark" and "light" style sheets' (glamour
// v2.0.1), so answers look as they did when glamour drew them; the other
// themes' are in themes.go.
type palette struct {
	heading, h1, h6   attrs
	code              attrs // inline code
	linkText, linkURL attrs
	imageText, image  attrs
	rule              attrs // thematic break and table lines
	quote             attrs // block quote bar
	html              attrs // raw HTML, shown as written
	marker            attrs // list bullets and numbers
	hl                highlight.Scheme
}

func colour(fg int32) attrs { return attrs{fg: fg, bg: -1} }

// rgb is the 24-bit colour 0xRRGGBB as a colour of attrs.
func rgb(c int32) int32 { return trueColour | c }

// paletteOf is the palette of style s; an unknown style is Dark's.
func paletteOf(s Style) *palette {
	if int(s) < 0 || int(s) >= len(palettes) {
		return &palettes[Dark]
	}
	return &palettes[s]
}

var palettes = [...]palette{
	Dark: {
		heading:   attrs{fg: 39, bg: -1, bold: true},
		h1:        attrs{fg: 228, bg: 63, bold: true},
		h6:        colour(35),
		code:      attrs{fg: 203, bg: 236},
		linkText:  attrs{fg: 35, bg: -1, bold: true},
		linkURL:   attrs{fg: 30, bg: -1, underline: true},
		imageText: colour(243),
		image:     attrs{fg: 212, bg: -1, underline: true},
		rule:      colour(240),
		quote:     colour(240),
		html:      colour(244),
		marker:    plain,
		hl:        highlight.Dark,
	},
	Light: {
		heading:   attrs{fg: 27, bg: -1, bold: true},
		h1:        attrs{fg: 228, bg: 63, bold: true},
		h6:        colour(27),
		code:      attrs{fg: 203, bg: 254},
		linkText:  attrs{fg: 29, bg: -1, bold: true},
		linkURL:   attrs{fg: 36, bg: -1, underline: true},
		imageText: colour(243),
		image:     attrs{fg: 205, bg: -1, underline: true},
		rule:      colour(249),
		quote:     colour(249),
		html:      colour(244),
		marker:    plain,
		hl:        highlight.Light,
	},
	Dracula:        draculaPalette,
	SolarizedDark:  solarizedDarkPalette,
	SolarizedLight: solarizedLightPalette,
	HighContrast:   highContrastPalette,
}
