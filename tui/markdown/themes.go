package markdown

import "github.com/agent-dev/agent/tui/markdown/highlight"

// The palettes of the themes beyond glamour's dark and light, in 24-bit
// colour; a terminal of fewer colours gets the nearest ones from its
// output's colour profile.

// draculaPalette follows glamour's dracula style sheet: purple headings,
// pink link text, cyan addresses, green inline code.
var draculaPalette = palette{
	heading:   attrs{fg: rgb(0xBD93F9), bg: -1, bold: true},
	h1:        attrs{fg: rgb(0x282A36), bg: rgb(0xBD93F9), bold: true},
	h6:        colour(rgb(0xBD93F9)),
	code:      attrs{fg: rgb(0x50FA7B), bg: rgb(0x44475A)},
	linkText:  attrs{fg: rgb(0xFF79C6), bg: -1, bold: true},
	linkURL:   attrs{fg: rgb(0x8BE9FD), bg: -1, underline: true},
	imageText: colour(rgb(0x6272A4)),
	image:     attrs{fg: rgb(0x8BE9FD), bg: -1, underline: true},
	rule:      colour(rgb(0x6272A4)),
	quote:     colour(rgb(0x6272A4)),
	html:      colour(rgb(0x6272A4)),
	marker:    colour(rgb(0xFF79C6)),
	hl:        highlight.Dracula,
}

// solarizedDarkPalette is Solarized's accents on base03.
var solarizedDarkPalette = palette{
	heading:   attrs{fg: rgb(0x268BD2), bg: -1, bold: true},
	h1:        attrs{fg: rgb(0xFDF6E3), bg: rgb(0x268BD2), bold: true},
	h6:        colour(rgb(0x2AA198)),
	code:      attrs{fg: rgb(0xCB4B16), bg: rgb(0x073642)},
	linkText:  attrs{fg: rgb(0x2AA198), bg: -1, bold: true},
	linkURL:   attrs{fg: rgb(0x268BD2), bg: -1, underline: true},
	imageText: colour(rgb(0x586E75)),
	image:     attrs{fg: rgb(0x6C71C4), bg: -1, underline: true},
	rule:      colour(rgb(0x586E75)),
	quote:     colour(rgb(0x586E75)),
	html:      colour(rgb(0x586E75)),
	marker:    plain,
	hl:        highlight.SolarizedDark,
}

// solarizedLightPalette is Solarized's accents on base3.
var solarizedLightPalette = palette{
	heading:   attrs{fg: rgb(0x268BD2), bg: -1, bold: true},
	h1:        attrs{fg: rgb(0xFDF6E3), bg: rgb(0x268BD2), bold: true},
	h6:        colour(rgb(0x2AA198)),
	code:      attrs{fg: rgb(0xCB4B16), bg: rgb(0xEEE8D5)},
	linkText:  attrs{fg: rgb(0x2AA198), bg: -1, bold: true},
	linkURL:   attrs{fg: rgb(0x268BD2), bg: -1, underline: true},
	imageText: colour(rgb(0x93A1A1)),
	image:     attrs{fg: rgb(0x6C71C4), bg: -1, underline: true},
	rule:      colour(rgb(0x93A1A1)),
	quote:     colour(rgb(0x93A1A1)),
	html:      colour(rgb(0x93A1A1)),
	marker:    plain,
	hl:        highlight.SolarizedLight,
}

// highContrastPalette uses the 16 ANSI colours themselves (indices 0-15),
// which a 16-colour terminal shows unchanged, and no background but the
// first heading's.
var highContrastPalette = palette{
	heading:   attrs{fg: 14, bg: -1, bold: true},
	h1:        attrs{fg: 0, bg: 14, bold: true},
	h6:        colour(14),
	code:      attrs{fg: 11, bg: -1, bold: true},
	linkText:  attrs{fg: 10, bg: -1, bold: true},
	linkURL:   attrs{fg: 14, bg: -1, underline: true},
	imageText: colour(7),
	image:     attrs{fg: 13, bg: -1, underline: true},
	rule:      colour(7),
	quote:     colour(7),
	html:      colour(7),
	marker:    attrs{fg: 15, bg: -1, bold: true},
	hl:        highlight.HighContrast,
}
