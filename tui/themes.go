package tui

import (
	"image/color"
	"slices"

	"charm.land/lipgloss/v2"

	"github.com/agent-dev/agent/tui/markdown"
)

// theme is a named set of colours for the whole interface: the six colours
// the styles' roles are drawn from, colours of single roles over them (a
// theme file's [colors]), and the markdown and code colours of answers.
type theme struct {
	name     string
	dark     bool // made for a dark background
	markdown markdown.Style
	colours  themeColours
	roles    map[string]color.Color // by role name (see roles)
}

// themeColours are the colours the styles' roles are drawn from.
type themeColours struct {
	fg     color.Color // the person's prompt, tool arguments
	accent color.Color // marks, tool names, keys
	dim    color.Color // notes, reasoning, output, the status line
	green  color.Color // success, added lines
	red    color.Color // errors, removed lines
	yellow color.Color // running, questions, warnings
}

// autoTheme is the theme name that follows the terminal's background.
const autoTheme = "auto"

// builtinThemes are the names of the interface's own themes, in the order
// /theme lists them (auto first: it is dark or light).
var builtinThemes = []string{autoTheme, "dark", "light", "dracula", "solarized-dark", "solarized-light", "high-contrast"}

// isBuiltinTheme reports whether name is one of builtinThemes.
func isBuiltinTheme(name string) bool { return slices.Contains(builtinThemes, name) }

func hex(s string) color.Color { return lipgloss.Color(s) }

// builtinTheme returns the built-in theme name ("auto" excluded: it is
// dark or light), nil for any other name.
func builtinTheme(name string) *theme {
	switch name {
	case "dark":
		return &theme{name: name, dark: true, markdown: markdown.Dark, colours: themeColours{
			fg: hex("#E6EDF3"), accent: hex("#9D8CFF"), dim: hex("#6C6C6C"),
			green: hex("#3FB950"), red: hex("#F85149"), yellow: hex("#D29922"),
		}}
	case "light":
		return &theme{name: name, markdown: markdown.Light, colours: themeColours{
			fg: hex("#1F2328"), accent: hex("#5A56E0"), dim: hex("#8A8A8A"),
			green: hex("#1A7F37"), red: hex("#CF222E"), yellow: hex("#9A6700"),
		}}
	case "dracula":
		// draculatheme.com's palette: foreground, purple, comment, green,
		// red and yellow; the prompt's mark and keys in its pink.
		return &theme{name: name, dark: true, markdown: markdown.Dracula, colours: themeColours{
			fg: hex("#F8F8F2"), accent: hex("#BD93F9"), dim: hex("#6272A4"),
			green: hex("#50FA7B"), red: hex("#FF5555"), yellow: hex("#F1FA8C"),
		}, roles: map[string]color.Color{"user_mark": hex("#FF79C6"), "key": hex("#FF79C6")}}
	case "solarized-dark":
		// ethanschoonover.com/solarized: base1 for emphasis, base01 for
		// secondary text, blue as the accent.
		return &theme{name: name, dark: true, markdown: markdown.SolarizedDark, colours: themeColours{
			fg: hex("#93A1A1"), accent: hex("#268BD2"), dim: hex("#586E75"),
			green: hex("#859900"), red: hex("#DC322F"), yellow: hex("#B58900"),
		}, roles: map[string]color.Color{"user_mark": hex("#D33682")}}
	case "solarized-light":
		return &theme{name: name, markdown: markdown.SolarizedLight, colours: themeColours{
			fg: hex("#586E75"), accent: hex("#268BD2"), dim: hex("#93A1A1"),
			green: hex("#859900"), red: hex("#DC322F"), yellow: hex("#B58900"),
		}, roles: map[string]color.Color{"user_mark": hex("#D33682")}}
	case "high-contrast":
		// The bright ANSI colours by number: the terminal's own palette,
		// unchanged on a 16-colour terminal, every role apart from the
		// next; secondary text is white, not grey.
		return &theme{name: name, dark: true, markdown: markdown.HighContrast, colours: themeColours{
			fg: hex("15"), accent: hex("14"), dim: hex("7"),
			green: hex("10"), red: hex("9"), yellow: hex("11"),
		}, roles: map[string]color.Color{"user_mark": hex("13"), "key": hex("11")}}
	}
	return nil
}
