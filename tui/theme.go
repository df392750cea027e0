package tui

import (
	"charm.land/lipgloss/v2"

	"github.com/agent-dev/agent/tui/markdown"
)

// styles are the colours and text styles of every component, made from a
// theme (themes.go). Colour is dropped or reduced by the terminal output
// (NO_COLOR, a dumb terminal, 16 or 256 colours: the output's colour
// profile) without the styles knowing.
type styles struct {
	// Dark is whether the theme is for a dark background (the input's
	// and the help's own styles follow it).
	Dark bool
	// Theme is the name of the theme the styles were made from ("dark",
	// "dracula", a theme file's name).
	Theme string
	// Markdown renders assistant messages in the matching glamour style;
	// it caches a glamour renderer per width, shared by every message.
	Markdown *markdown.Renderer

	User      lipgloss.Style // the user's prompt
	UserMark  lipgloss.Style // the marker before it
	Reasoning lipgloss.Style // dimmed reasoning text
	Error     lipgloss.Style // errors in the pane
	Note      lipgloss.Style // one-line notes (pick_tools, cancelled)
	Dim       lipgloss.Style // secondary text

	ToolName     lipgloss.Style
	ToolArg      lipgloss.Style
	ToolOK       lipgloss.Style
	ToolFailed   lipgloss.Style
	ToolRunning  lipgloss.Style
	ToolOutput   lipgloss.Style
	ToolSelected lipgloss.Style // border or marker of the selected block
	Approval     lipgloss.Style // the inline approval question
	Key          lipgloss.Style // a key name in a hint

	DiffAdd  lipgloss.Style // an added line of a diff
	DiffDel  lipgloss.Style // a removed line
	DiffHunk lipgloss.Style // a hunk header or file header

	Status     lipgloss.Style // the status line
	StatusWarn lipgloss.Style // a warning in the status line (yolo)

	DiagError lipgloss.Style // an error a change introduced (language servers)
	DiagWarn  lipgloss.Style // a warning a change introduced
}

// newStyles returns the styles of the dark or the light theme.
func newStyles(dark bool) *styles {
	if dark {
		return themeStyles(builtinTheme("dark"))
	}
	return themeStyles(builtinTheme("light"))
}

// themeStyles returns the styles of theme t: each role takes its colour
// from the theme's six colours, then from the theme's overrides by role.
func themeStyles(t *theme) *styles {
	c := t.colours
	st := &styles{
		Dark:         t.dark,
		Theme:        t.name,
		Markdown:     markdown.NewRenderer(t.markdown),
		User:         lipgloss.NewStyle().Foreground(c.fg).Bold(true),
		UserMark:     lipgloss.NewStyle().Foreground(c.accent).Bold(true),
		Reasoning:    lipgloss.NewStyle().Foreground(c.dim).Italic(true),
		Error:        lipgloss.NewStyle().Foreground(c.red).Bold(true),
		Note:         lipgloss.NewStyle().Foreground(c.dim),
		Dim:          lipgloss.NewStyle().Foreground(c.dim),
		ToolName:     lipgloss.NewStyle().Foreground(c.accent).Bold(true),
		ToolArg:      lipgloss.NewStyle().Foreground(c.fg),
		ToolOK:       lipgloss.NewStyle().Foreground(c.green),
		ToolFailed:   lipgloss.NewStyle().Foreground(c.red),
		ToolRunning:  lipgloss.NewStyle().Foreground(c.yellow),
		ToolOutput:   lipgloss.NewStyle().Foreground(c.dim),
		ToolSelected: lipgloss.NewStyle().Foreground(c.accent),
		Approval:     lipgloss.NewStyle().Foreground(c.yellow).Bold(true),
		Key:          lipgloss.NewStyle().Foreground(c.accent).Bold(true),
		DiffAdd:      lipgloss.NewStyle().Foreground(c.green),
		DiffDel:      lipgloss.NewStyle().Foreground(c.red),
		DiffHunk:     lipgloss.NewStyle().Foreground(c.accent),
		Status:       lipgloss.NewStyle().Foreground(c.dim),
		StatusWarn:   lipgloss.NewStyle().Foreground(c.red).Bold(true),
		DiagError:    lipgloss.NewStyle().Foreground(c.red),
		DiagWarn:     lipgloss.NewStyle().Foreground(c.yellow),
	}
	for _, r := range roles {
		if col, ok := t.roles[r.name]; ok {
			f := r.field(st)
			*f = f.Foreground(col)
		}
	}
	return st
}

// role is one of the styles' roles as a theme file names it.
type role struct {
	name  string // the field's name in snake case: "tool_name" for ToolName
	field func(*styles) *lipgloss.Style
}

// roles are every role a theme can colour, in the styles' order.
var roles = []role{
	{"user", func(s *styles) *lipgloss.Style { return &s.User }},
	{"user_mark", func(s *styles) *lipgloss.Style { return &s.UserMark }},
	{"reasoning", func(s *styles) *lipgloss.Style { return &s.Reasoning }},
	{"error", func(s *styles) *lipgloss.Style { return &s.Error }},
	{"note", func(s *styles) *lipgloss.Style { return &s.Note }},
	{"dim", func(s *styles) *lipgloss.Style { return &s.Dim }},
	{"tool_name", func(s *styles) *lipgloss.Style { return &s.ToolName }},
	{"tool_arg", func(s *styles) *lipgloss.Style { return &s.ToolArg }},
	{"tool_ok", func(s *styles) *lipgloss.Style { return &s.ToolOK }},
	{"tool_failed", func(s *styles) *lipgloss.Style { return &s.ToolFailed }},
	{"tool_running", func(s *styles) *lipgloss.Style { return &s.ToolRunning }},
	{"tool_output", func(s *styles) *lipgloss.Style { return &s.ToolOutput }},
	{"tool_selected", func(s *styles) *lipgloss.Style { return &s.ToolSelected }},
	{"approval", func(s *styles) *lipgloss.Style { return &s.Approval }},
	{"key", func(s *styles) *lipgloss.Style { return &s.Key }},
	{"diff_add", func(s *styles) *lipgloss.Style { return &s.DiffAdd }},
	{"diff_del", func(s *styles) *lipgloss.Style { return &s.DiffDel }},
	{"diff_hunk", func(s *styles) *lipgloss.Style { return &s.DiffHunk }},
	{"status", func(s *styles) *lipgloss.Style { return &s.Status }},
	{"status_warn", func(s *styles) *lipgloss.Style { return &s.StatusWarn }},
	{"diag_error", func(s *styles) *lipgloss.Style { return &s.DiagError }},
	{"diag_warn", func(s *styles) *lipgloss.Style { return &s.DiagWarn }},
}
