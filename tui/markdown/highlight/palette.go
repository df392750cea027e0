package highlight

import (
	"strconv"

	"github.com/alecthomas/chroma/v2"
)

// style is how one token is drawn: an optional 24-bit foreground colour and attributes. The zero value draws
// nothing. Background colours are never drawn (the caller owns the block's background).
type style struct {
	rgb       uint32 // 0xRRGGBB, meaningful when hasColour
	hasColour bool
	bold      bool
	italic    bool
	underline bool
}

// plain reports whether the style draws nothing.
func (s style) plain() bool { return s == style{} }

// inherit fills what s leaves unset from its ancestor a, as chroma's StyleEntry.Inherit does for the entries
// glamour writes (which only ever switch an attribute on).
func (s style) inherit(a style) style {
	if !s.hasColour && a.hasColour {
		s.rgb, s.hasColour = a.rgb, true
	}
	s.bold = s.bold || a.bold
	s.italic = s.italic || a.italic
	s.underline = s.underline || a.underline
	return s
}

// appendSGR appends the SGR sequence that switches s on ("\x1b[1;3;4;38;2;R;G;Bm", attributes first).
func (s style) appendSGR(b []byte) []byte {
	b = append(b, "\x1b["...)
	sep := false
	for _, a := range [...]struct {
		on   bool
		code string
	}{{s.bold, "1"}, {s.italic, "3"}, {s.underline, "4"}} {
		if a.on {
			if sep {
				b = append(b, ';')
			}
			b = append(b, a.code...)
			sep = true
		}
	}
	if s.hasColour {
		if sep {
			b = append(b, ';')
		}
		b = append(b, "38;2;"...)
		b = strconv.AppendUint(b, uint64(s.rgb>>16&0xff), 10)
		b = append(b, ';')
		b = strconv.AppendUint(b, uint64(s.rgb>>8&0xff), 10)
		b = append(b, ';')
		b = strconv.AppendUint(b, uint64(s.rgb&0xff), 10)
	}
	return append(b, 'm')
}

// fg is a style with foreground colour rgb (0xRRGGBB).
func fg(rgb uint32) style { return style{rgb: rgb, hasColour: true} }

// palette holds the entries of one of glamour's style sheets' "chroma" section, one field per key of that section
// (text, error, comment, ...). Fields left zero are the keys the sheet leaves empty ({}).
type palette struct {
	text, err, comment, commentPreproc                                 style
	keyword, keywordReserved, keywordNamespace, keywordType            style
	operator, punctuation                                              style
	name, nameBuiltin, nameTag, nameAttribute, nameClass, nameConstant style
	nameDecorator, nameException, nameFunction, nameOther              style
	literal, literalNumber, literalDate, literalString                 style
	literalStringEscape                                                style
	genericDeleted, genericEmph, genericInserted, genericStrong        style
	genericSubheading                                                  style
}

// darkPalette is glamour v2.0.1's styles/dark.json "chroma" section, without its background colours.
var darkPalette = palette{
	text:                fg(0xC4C4C4),
	err:                 fg(0xF1F1F1),
	comment:             fg(0x676767),
	commentPreproc:      fg(0xFF875F),
	keyword:             fg(0x00AAFF),
	keywordReserved:     fg(0xFF5FD2),
	keywordNamespace:    fg(0xFF5F87),
	keywordType:         fg(0x6E6ED8),
	operator:            fg(0xEF8080),
	punctuation:         fg(0xE8E8A8),
	name:                fg(0xC4C4C4),
	nameBuiltin:         fg(0xFF8EC7),
	nameTag:             fg(0xB083EA),
	nameAttribute:       fg(0x7A7AE6),
	nameClass:           style{rgb: 0xF1F1F1, hasColour: true, bold: true, underline: true},
	nameDecorator:       fg(0xFFFF87),
	nameFunction:        fg(0x00D787),
	literalNumber:       fg(0x6EEFC0),
	literalString:       fg(0xC69669),
	literalStringEscape: fg(0xAFFFD7),
	genericDeleted:      fg(0xFD5B5B),
	genericEmph:         style{italic: true},
	genericInserted:     fg(0x00D787),
	genericStrong:       style{bold: true},
	genericSubheading:   fg(0x777777),
}

// lightPalette is glamour v2.0.1's styles/light.json "chroma" section, without its background colours.
var lightPalette = palette{
	text:                fg(0x2A2A2A),
	err:                 fg(0xF1F1F1),
	comment:             fg(0x8D8D8D),
	commentPreproc:      fg(0xFF875F),
	keyword:             fg(0x279EFC),
	keywordReserved:     fg(0xFF5FD2),
	keywordNamespace:    fg(0xFB406F),
	keywordType:         fg(0x7049C2),
	operator:            fg(0xFF2626),
	punctuation:         fg(0xFA7878),
	nameBuiltin:         fg(0x0A1BB1),
	nameTag:             fg(0x581290),
	nameAttribute:       fg(0x8362CB),
	nameClass:           style{rgb: 0x212121, hasColour: true, bold: true, underline: true},
	nameConstant:        fg(0x581290),
	nameDecorator:       fg(0xA3A322),
	nameFunction:        fg(0x019F57),
	literalNumber:       fg(0x22CCAE),
	literalString:       fg(0x7E5B38),
	literalStringEscape: fg(0x00AEAE),
	genericDeleted:      fg(0xFD5B5B),
	genericEmph:         style{italic: true},
	genericInserted:     fg(0x00D787),
	genericStrong:       style{bold: true},
	genericSubheading:   fg(0x777777),
}

// own is the palette's entry for exactly token type t (zero when the sheet has none), the way glamour maps its
// keys onto chroma's token types.
func (p *palette) own(t chroma.TokenType) style {
	switch t.Category() {
	case chroma.Name:
		return p.ownName(t)
	case chroma.Literal:
		return p.ownLiteral(t)
	case chroma.Generic:
		return p.ownGeneric(t)
	}
	switch t {
	case chroma.Text:
		return p.text
	case chroma.Error:
		return p.err
	case chroma.Comment:
		return p.comment
	case chroma.CommentPreproc:
		return p.commentPreproc
	case chroma.Keyword:
		return p.keyword
	case chroma.KeywordReserved:
		return p.keywordReserved
	case chroma.KeywordNamespace:
		return p.keywordNamespace
	case chroma.KeywordType:
		return p.keywordType
	case chroma.Operator:
		return p.operator
	case chroma.Punctuation:
		return p.punctuation
	}
	return style{}
}

// ownName is own for a token type t of the Name category.
func (p *palette) ownName(t chroma.TokenType) style {
	switch t {
	case chroma.Name:
		return p.name
	case chroma.NameBuiltin:
		return p.nameBuiltin
	case chroma.NameTag:
		return p.nameTag
	case chroma.NameAttribute:
		return p.nameAttribute
	case chroma.NameClass:
		return p.nameClass
	case chroma.NameConstant:
		return p.nameConstant
	case chroma.NameDecorator:
		return p.nameDecorator
	case chroma.NameException:
		return p.nameException
	case chroma.NameFunction:
		return p.nameFunction
	case chroma.NameOther:
		return p.nameOther
	}
	return style{}
}

// ownLiteral is own for a token type t of the Literal category.
func (p *palette) ownLiteral(t chroma.TokenType) style {
	switch t {
	case chroma.Literal:
		return p.literal
	case chroma.LiteralNumber:
		return p.literalNumber
	case chroma.LiteralDate:
		return p.literalDate
	case chroma.LiteralString:
		return p.literalString
	case chroma.LiteralStringEscape:
		return p.literalStringEscape
	}
	return style{}
}

// ownGeneric is own for a token type t of the Generic category.
func (p *palette) ownGeneric(t chroma.TokenType) style {
	switch t {
	case chroma.GenericDeleted:
		return p.genericDeleted
	case chroma.GenericEmph:
		return p.genericEmph
	case chroma.GenericInserted:
		return p.genericInserted
	case chroma.GenericStrong:
		return p.genericStrong
	case chroma.GenericSubheading:
		return p.genericSubheading
	}
	return style{}
}

// resolve is the style of token type t: its own entry, then what its sub-category (LiteralString for
// LiteralStringDouble), its category (Literal) and finally the base text entry supply, in the order chroma's
// Style.Get inherits them.
func (p *palette) resolve(t chroma.TokenType) style {
	s := p.own(t)
	if sub := t.SubCategory(); sub != t {
		s = s.inherit(p.own(sub))
	}
	if cat := t.Category(); cat != t && cat != t.SubCategory() {
		s = s.inherit(p.own(cat))
	}
	return s.inherit(p.text)
}
