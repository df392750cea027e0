package highlight

// Scheme names one palette of code colours: glamour's dark and light style
// sheets', and those of the interface's other themes.
type Scheme uint8

const (
	// Dark is glamour v2.0.1's dark style sheet's colours.
	Dark Scheme = iota
	// Light is glamour v2.0.1's light style sheet's colours.
	Light
	// Dracula is chroma v2.14.0's styles/dracula.xml on glamour's keys.
	Dracula
	// SolarizedDark is chroma v2.14.0's styles/solarized-dark.xml on
	// glamour's keys.
	SolarizedDark
	// SolarizedLight is chroma v2.14.0's styles/solarized-light.xml on
	// glamour's keys, its empty entries filled from Solarized's accents.
	SolarizedLight
	// HighContrast is bright, saturated colours on a dark background,
	// each near one of the 16 ANSI colours so that a 16-colour terminal
	// still tells the tokens apart.
	HighContrast
)

// paletteOf is the palette of scheme s; an unknown scheme is Dark's.
func paletteOf(s Scheme) *palette {
	switch s {
	case Light:
		return &lightPalette
	case Dracula:
		return &draculaPalette
	case SolarizedDark:
		return &solarizedDarkPalette
	case SolarizedLight:
		return &solarizedLightPalette
	case HighContrast:
		return &highContrastPalette
	}
	return &darkPalette
}

// draculaPalette is chroma v2.14.0's styles/dracula.xml, entry by entry on
// glamour's keys, without its background.
var draculaPalette = palette{
	text:                fg(0xF8F8F2),
	err:                 fg(0xF8F8F2),
	comment:             fg(0x6272A4),
	commentPreproc:      fg(0xFF79C6),
	keyword:             fg(0xFF79C6),
	keywordReserved:     fg(0xFF79C6),
	keywordNamespace:    fg(0xFF79C6),
	keywordType:         fg(0x8BE9FD),
	operator:            fg(0xFF79C6),
	punctuation:         fg(0xF8F8F2),
	name:                fg(0xF8F8F2),
	nameBuiltin:         style{rgb: 0x8BE9FD, hasColour: true, italic: true},
	nameTag:             fg(0xFF79C6),
	nameAttribute:       fg(0x50FA7B),
	nameClass:           fg(0x50FA7B),
	nameConstant:        fg(0xF8F8F2),
	nameDecorator:       fg(0xF8F8F2),
	nameException:       fg(0xF8F8F2),
	nameFunction:        fg(0x50FA7B),
	nameOther:           fg(0xF8F8F2),
	literal:             fg(0xF8F8F2),
	literalNumber:       fg(0xBD93F9),
	literalDate:         fg(0xF8F8F2),
	literalString:       fg(0xF1FA8C),
	literalStringEscape: fg(0xF1FA8C),
	genericDeleted:      fg(0xFF5555),
	genericEmph:         style{rgb: 0xF8F8F2, hasColour: true, underline: true},
	genericInserted:     style{rgb: 0x50FA7B, hasColour: true, bold: true},
	genericStrong:       fg(0xF8F8F2),
	genericSubheading:   style{rgb: 0xF8F8F2, hasColour: true, bold: true},
}

// solarizedDarkPalette is chroma v2.14.0's styles/solarized-dark.xml on
// glamour's keys (its base text colour, #93a1a1, from its Background
// entry), without its background.
var solarizedDarkPalette = palette{
	text:                fg(0x93A1A1),
	err:                 fg(0xDC322F),
	comment:             fg(0x586E75),
	commentPreproc:      fg(0x719E07),
	keyword:             fg(0x719E07),
	keywordReserved:     fg(0x268BD2),
	keywordType:         fg(0xDC322F),
	operator:            fg(0x719E07),
	nameBuiltin:         fg(0xB58900),
	nameTag:             fg(0x268BD2),
	nameAttribute:       fg(0x93A1A1),
	nameClass:           fg(0x268BD2),
	nameConstant:        fg(0xCB4B16),
	nameDecorator:       fg(0x268BD2),
	nameException:       fg(0xCB4B16),
	nameFunction:        fg(0x268BD2),
	nameOther:           fg(0xCB4B16),
	literalNumber:       fg(0x2AA198),
	literalString:       fg(0x2AA198),
	literalStringEscape: fg(0xCB4B16),
	genericDeleted:      fg(0xDC322F),
	genericEmph:         style{italic: true},
	genericInserted:     fg(0x719E07),
	genericStrong:       style{bold: true},
	genericSubheading:   fg(0x268BD2),
}

// solarizedLightPalette is chroma v2.14.0's styles/solarized-light.xml on
// glamour's keys, without its background; the keys it leaves to the base
// text colour (strings, functions, comments' colour is its own) keep
// Solarized's accents so that code is not one colour.
var solarizedLightPalette = palette{
	text:                fg(0x586E75),
	err:                 fg(0xDC322F),
	comment:             style{rgb: 0x93A1A1, hasColour: true, italic: true},
	commentPreproc:      fg(0x859900),
	keyword:             fg(0x859900),
	keywordNamespace:    style{rgb: 0xDC322F, hasColour: true, bold: true},
	keywordType:         style{bold: true},
	operator:            fg(0x586E75),
	name:                fg(0x268BD2),
	nameBuiltin:         fg(0xCB4B16),
	nameTag:             style{bold: true},
	nameClass:           fg(0xCB4B16),
	nameFunction:        fg(0x268BD2),
	literal:             fg(0x2AA198),
	literalNumber:       style{rgb: 0x2AA198, hasColour: true, bold: true},
	literalString:       fg(0x2AA198),
	literalStringEscape: fg(0xCB4B16),
	genericDeleted:      fg(0xDC322F),
	genericEmph:         style{rgb: 0xD33682, hasColour: true, italic: true},
	genericInserted:     fg(0x859900),
	genericStrong:       style{rgb: 0xD33682, hasColour: true, bold: true},
	genericSubheading:   fg(0xD33682),
}

// highContrastPalette uses the xterm values of the bright ANSI colours, so
// that a 16-colour terminal shows each token kind in its own colour.
var highContrastPalette = palette{
	text:                fg(0xFFFFFF),
	err:                 style{rgb: 0xFF0000, hasColour: true, bold: true},
	comment:             style{rgb: 0xC0C0C0, hasColour: true, italic: true},
	commentPreproc:      fg(0xFF00FF),
	keyword:             style{rgb: 0x00FFFF, hasColour: true, bold: true},
	keywordType:         fg(0x00FFFF),
	operator:            fg(0xFFFF00),
	punctuation:         fg(0xFFFFFF),
	nameBuiltin:         fg(0xFF00FF),
	nameTag:             fg(0x00FFFF),
	nameAttribute:       fg(0xFFFF00),
	nameClass:           style{rgb: 0x00FF00, hasColour: true, bold: true},
	nameFunction:        fg(0x00FF00),
	literalNumber:       fg(0xFF00FF),
	literalString:       fg(0xFFFF00),
	literalStringEscape: fg(0xFF00FF),
	genericDeleted:      fg(0xFF0000),
	genericEmph:         style{italic: true},
	genericInserted:     fg(0x00FF00),
	genericStrong:       style{bold: true},
	genericSubheading:   fg(0x00FFFF),
}
