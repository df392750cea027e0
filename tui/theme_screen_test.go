package tui

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/agent-dev/agent/conversation"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/fake"
)

// themeAnswer is an answer with every markdown element a theme colours.
const themeAnswer = "## The parser\n\nIt lives in `parse.go` and is called from [main](https://example.com/main).\n\n" +
	"- reads **tokens**\n- builds the tree\n\n> one pass only\n\n```go\nfunc Parse(s string) (*Tree, error) {\n\treturn nil, fmt.Errorf(\"todo: %d\", 42) // later\n}\n```\n"

// themedDriver is the interface at 100x30 in theme, showing a conversation
// with a prompt, an answer, a finished and a failed tool call, a note and
// an error.
func themedDriver(t *testing.T, theme string) *driver {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	cfg := config(t, fake.New(), t.TempDir(), nil)
	cfg.Theme = theme
	cfg.Dir = "/home/person/project" // the status line shows it
	conv := conversation.New("", nil)
	for _, msg := range []providers.Message{
		{Role: providers.RoleUser, Parts: []providers.Part{providers.Text{Text: "where is the parser?"}}},
		{Role: providers.RoleAssistant, Parts: []providers.Part{
			providers.ToolCall{ID: "c1", Name: "bash", Arguments: `{"command":"grep -rn 'func Parse' ."}`},
			providers.ToolCall{ID: "c2", Name: "read_file", Arguments: `{"path":"nope.go"}`},
		}},
		{Role: providers.RoleTool, Parts: []providers.Part{
			providers.ToolResult{CallID: "c1", Name: "bash", Content: "./parse.go:12:func Parse(s string) (*Tree, error) {"},
			providers.ToolResult{CallID: "c2", Name: "read_file", Content: "nope.go: no such file", IsError: true},
		}},
		{Role: providers.RoleAssistant, Parts: []providers.Part{providers.Text{Text: themeAnswer}}},
	} {
		if err := conv.Append(context.Background(), msg, providers.Usage{}); err != nil {
			t.Fatal(err)
		}
	}
	cfg.Session.Conv = conv
	d := newDriver(t, cfg)
	d.m.chat.append(newErrorItem(d.m.st, "the server said 529: overloaded"))
	d.untilShows("one pass only")
	return d
}

// Each theme's whole screen at 100x30, colours and all.
func TestThemeScreensGolden(t *testing.T) {
	for _, name := range builtinThemes[1:] {
		t.Run(name, func(t *testing.T) {
			d := themedDriver(t, name)
			if d.m.st.Theme != name {
				t.Fatalf("theme %q in force, want %q", d.m.st.Theme, name)
			}
			requireGolden(t, "screen_theme_"+name+"_100x30", d.m.View().Content)
		})
	}
}

// toProfile is s as a terminal of profile p gets it: the colours reduced
// (or dropped) as the interface's output does.
func toProfile(t *testing.T, s string, p colorprofile.Profile) string {
	t.Helper()
	var buf bytes.Buffer
	w := &colorprofile.Writer{Forward: &buf, Profile: p}
	if _, err := w.WriteString(s); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// On a 16-colour terminal the high-contrast theme still gives every role
// that matters its own colour, and NO_COLOR's output has no colour but the
// same text.
func TestThemesOnFewerColours(t *testing.T) {
	d := themedDriver(t, "high-contrast")
	screen := d.m.View().Content
	ansi16 := toProfile(t, screen, colorprofile.ANSI)
	requireGolden(t, "screen_theme_high-contrast_16colours_100x30", ansi16)
	if strings.Contains(ansi16, "38;2;") || strings.Contains(ansi16, "38;5;") {
		t.Error("the 16-colour screen still has 256 or 24-bit colours")
	}
	if ansi.Strip(ansi16) != ansi.Strip(screen) {
		t.Error("the 16-colour screen shows other text")
	}
	st := themeStyles(builtinTheme("high-contrast"))
	seen := map[string]string{}
	for _, r := range []string{"user", "user_mark", "tool_name", "tool_ok", "tool_failed", "tool_running", "note"} {
		f := roleField(t, r)(st)
		sgr := toProfile(t, f.Render("x"), colorprofile.ANSI)
		if other, dup := seen[sgr]; dup {
			t.Errorf("on 16 colours %s and %s look alike: %q", r, other, sgr)
		}
		seen[sgr] = r
	}
	for _, name := range builtinThemes[1:] {
		screen := themedDriver(t, name).m.View().Content
		// NO_COLOR: colorprofile.Detect gives Ascii, which keeps bold
		// and italic and drops every colour.
		plain := toProfile(t, screen, colorprofile.Ascii)
		if strings.Contains(plain, "38;") || strings.Contains(plain, "48;") || strings.Contains(plain, "[3") && strings.Contains(plain, "[9") {
			t.Errorf("%s: NO_COLOR output keeps colours", name)
		}
		if ansi.Strip(plain) != ansi.Strip(screen) {
			t.Errorf("%s: NO_COLOR output shows other text", name)
		}
		if c := toProfile(t, screen, colorprofile.ANSI256); strings.Contains(c, "38;2;") {
			t.Errorf("%s: the 256-colour screen keeps 24-bit colours", name)
		}
	}
}

// roleField is the accessor of the role named name.
func roleField(t *testing.T, name string) func(*styles) *lipgloss.Style {
	t.Helper()
	for _, r := range roles {
		if r.name == name {
			return r.field
		}
	}
	t.Fatalf("no role %q", name)
	return nil
}
