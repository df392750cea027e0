package highlight

import (
	"testing"

	"github.com/alecthomas/chroma/v2"
)

// TestInheritance: a token type without its own colour takes its parent
// category's, then the base text colour, as chroma's styles do. (The
// palettes were taken from glamour v2.0.1's dark.json and light.json.)
func TestInheritance(t *testing.T) {
	p := &darkPalette
	for _, tc := range []struct {
		t    chroma.TokenType
		want style
	}{
		{chroma.LiteralStringDouble, p.literalString},                             // sub-category
		{chroma.LiteralNumberHex, p.literalNumber},                                // sub-category
		{chroma.KeywordDeclaration, p.keyword},                                    // category
		{chroma.CommentSingle, p.comment},                                         // category
		{chroma.NameVariable, p.name},                                             // category
		{chroma.TextWhitespace, p.text},                                           // base text
		{chroma.Error, p.err},                                                     // its own
		{chroma.GenericEmph, style{rgb: 0xC4C4C4, hasColour: true, italic: true}}, // attribute and base colour
		{chroma.NameClass, p.nameClass},
	} {
		if got := p.resolve(tc.t); got != tc.want {
			t.Errorf("%v: %+v, want %+v", tc.t, got, tc.want)
		}
	}
	if got := lightPalette.resolve(chroma.NameOther); got != lightPalette.text {
		t.Errorf("light NameOther: %+v, want the text colour", got)
	}
}
