package tui

import (
	"errors"
	"fmt"
	"image/color"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/BurntSushi/toml"
)

// themeFile is a theme file of our own, $XDG_CONFIG_HOME/agent/themes/NAME.toml
// (else ~/.config/agent/themes/NAME.toml):
//
//	base = "dracula"          # the built-in theme it starts from; "dark" when left out
//	[colors]
//	user_mark = "#FF79C6"     # a role's colour: "#RRGGBB", "#RGB" or an ANSI number "0" to "255"
//	tool_name = 14            # an ANSI number may be written bare
//
// The roles are the styles' fields in snake case (see roles); a theme file
// changes the roles' colours only: the markdown and code colours are its
// base's.
type themeFile struct {
	Base   string         `toml:"base"`
	Colors map[string]any `toml:"colors"`
}

// themeNamePattern is what a theme file's name may be: no path, no dot.
var themeNamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)

// themesDir is where theme files are: $XDG_CONFIG_HOME/agent/themes, else
// ~/.config/agent/themes; "" when neither is known.
func themesDir(getenv func(string) string) string {
	if d := getenv("XDG_CONFIG_HOME"); d != "" {
		return filepath.Join(d, "agent", "themes")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".config", "agent", "themes")
	}
	return ""
}

// loadTheme returns the theme name: a built-in one ("auto" excluded), or
// the theme file name.toml in dir. The error says what is wrong in words a
// person can act on: an unknown name lists the themes there are.
func loadTheme(dir, name string) (*theme, error) {
	if t := builtinTheme(name); t != nil {
		return t, nil
	}
	if !themeNamePattern.MatchString(name) {
		return nil, fmt.Errorf("unknown theme %q: %s", name, themeChoices(dir))
	}
	if dir == "" {
		return nil, fmt.Errorf("unknown theme %q (no theme directory: neither XDG_CONFIG_HOME nor HOME is set): %s", name, themeChoices(dir))
	}
	path := filepath.Join(dir, name+".toml")
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("unknown theme %q (no %s): %s", name, path, themeChoices(dir))
	}
	if err != nil {
		return nil, fmt.Errorf("theme %q: %w", name, err)
	}
	t, err := parseTheme(name, string(b))
	if err != nil {
		return nil, fmt.Errorf("theme file %s: %w", path, err)
	}
	return t, nil
}

// parseTheme reads a theme file's text (see themeFile) as theme name. Every
// key must be known and every colour valid: a file with a mistake is
// refused whole, so that the person sees the mistake rather than half of
// the theme.
func parseTheme(name, text string) (*theme, error) {
	var f themeFile
	md, err := toml.Decode(text, &f)
	if err != nil {
		return nil, err
	}
	if un := md.Undecoded(); len(un) > 0 {
		keys := make([]string, len(un))
		for i, k := range un {
			keys[i] = k.String()
		}
		return nil, fmt.Errorf("unknown key %s: a theme file has base and [colors] with the roles %s", strings.Join(keys, ", "), roleNames())
	}
	base := f.Base
	if base == "" {
		base = "dark"
	}
	t := builtinTheme(base)
	if t == nil {
		return nil, fmt.Errorf("base = %q: want one of %s", f.Base, strings.Join(builtinThemes[1:], ", "))
	}
	t.name = name
	over := make(map[string]color.Color, len(t.roles)+len(f.Colors))
	for k, v := range t.roles {
		over[k] = v
	}
	keys := make([]string, 0, len(f.Colors))
	for k := range f.Colors {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !slices.ContainsFunc(roles, func(r role) bool { return r.name == k }) {
			return nil, fmt.Errorf("colors.%s: no such role; the roles are %s", k, roleNames())
		}
		var v string
		switch x := f.Colors[k].(type) {
		case string:
			v = x
		case int64:
			v = strconv.FormatInt(x, 10)
		default:
			return nil, fmt.Errorf("colors.%s = %v: want a string such as \"#FF79C6\" or an ANSI colour number", k, x)
		}
		c, err := parseColour(v)
		if err != nil {
			return nil, fmt.Errorf("colors.%s: %w", k, err)
		}
		over[k] = c
	}
	t.roles = over
	return t, nil
}

// parseColour reads "#RRGGBB", "#RGB" or an ANSI colour number "0" to "255".
func parseColour(s string) (color.Color, error) {
	if n, err := strconv.Atoi(s); err == nil {
		if n < 0 || n > 255 {
			return nil, fmt.Errorf("%q: an ANSI colour number is 0 to 255", s)
		}
		return lipgloss.Color(s), nil
	}
	hexDigits := strings.TrimPrefix(s, "#")
	if !strings.HasPrefix(s, "#") || (len(hexDigits) != 6 && len(hexDigits) != 3) || strings.Trim(strings.ToLower(hexDigits), "0123456789abcdef") != "" {
		return nil, fmt.Errorf("%q: want \"#RRGGBB\", \"#RGB\" or an ANSI colour number 0 to 255", s)
	}
	return lipgloss.Color(s), nil
}

// roleNames lists the roles a theme file can colour.
func roleNames() string {
	names := make([]string, len(roles))
	for i, r := range roles {
		names[i] = r.name
	}
	return strings.Join(names, ", ")
}

// themeFiles are the names of the theme files in dir (NAME of NAME.toml),
// sorted, built-in names left out (a built-in theme takes its name first);
// none when dir is "" or cannot be read.
func themeFiles(dir string) []string {
	if dir == "" {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".toml")
		if ok && !e.IsDir() && themeNamePattern.MatchString(name) && !isBuiltinTheme(name) {
			out = append(out, name)
		}
	}
	return out
}

// themeChoices says which themes there are, for an error about a name.
func themeChoices(dir string) string {
	all := append(slices.Clone(builtinThemes), themeFiles(dir)...)
	return "the themes are " + strings.Join(all, ", ")
}
