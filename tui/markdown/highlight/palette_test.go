package highlight

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
)

// glamourKeys maps the keys of a glamour style sheet's "chroma" section to the token types glamour gives them.
var glamourKeys = map[string]chroma.TokenType{
	"text": chroma.Text, "error": chroma.Error, "comment": chroma.Comment, "comment_preproc": chroma.CommentPreproc,
	"keyword": chroma.Keyword, "keyword_reserved": chroma.KeywordReserved, "keyword_namespace": chroma.KeywordNamespace,
	"keyword_type": chroma.KeywordType, "operator": chroma.Operator, "punctuation": chroma.Punctuation,
	"name": chroma.Name, "name_builtin": chroma.NameBuiltin, "name_tag": chroma.NameTag,
	"name_attribute": chroma.NameAttribute, "name_class": chroma.NameClass, "name_constant": chroma.NameConstant,
	"name_decorator": chroma.NameDecorator, "name_exception": chroma.NameException,
	"name_function": chroma.NameFunction, "name_other": chroma.NameOther, "literal": chroma.Literal,
	"literal_number": chroma.LiteralNumber, "literal_date": chroma.LiteralDate,
	"literal_string": chroma.LiteralString, "literal_string_escape": chroma.LiteralStringEscape,
	"generic_deleted": chroma.GenericDeleted, "generic_emph": chroma.GenericEmph,
	"generic_inserted": chroma.GenericInserted, "generic_strong": chroma.GenericStrong,
	"generic_subheading": chroma.GenericSubheading,
}

// TestPalettesAreGlamours compares the palettes with glamour's style sheets in the module cache (skipped when glamour
// is not a dependency of the module any more, or the go tool is missing).
func TestPalettesAreGlamours(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool:", err)
	}
	out, err := exec.Command(goTool, "list", "-m", "-f", "{{.Dir}}", "charm.land/glamour/v2").Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		t.Skip("glamour is not in the module cache")
	}
	for name, p := range map[string]*palette{"dark": &darkPalette, "light": &lightPalette} {
		data, err := os.ReadFile(filepath.Join(dir, "styles", name+".json"))
		if err != nil {
			t.Skip(err)
		}
		var sheet struct {
			CodeBlock struct {
				Chroma map[string]struct {
					Color     string `json:"color"`
					Bold      bool   `json:"bold"`
					Italic    bool   `json:"italic"`
					Underline bool   `json:"underline"`
				} `json:"chroma"`
			} `json:"code_block"`
		}
		if err := json.Unmarshal(data, &sheet); err != nil {
			t.Fatal(err)
		}
		for key, e := range sheet.CodeBlock.Chroma {
			if key == "background" {
				continue
			}
			tt, ok := glamourKeys[key]
			if !ok {
				t.Errorf("%s: key %q has no token type here", name, key)
				continue
			}
			want := style{bold: e.Bold, italic: e.Italic, underline: e.Underline}
			if e.Color != "" {
				rgb, err := strconv.ParseUint(strings.TrimPrefix(e.Color, "#"), 16, 32)
				if err != nil {
					t.Fatalf("%s %s: colour %q", name, key, e.Color)
				}
				want.rgb, want.hasColour = uint32(rgb), true
			}
			if got := p.own(tt); got != want {
				t.Errorf("%s %s: %+v, glamour has %+v", name, key, got, want)
			}
		}
	}
}

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
