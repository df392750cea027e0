package tui

import (
	"image/color"

	"charm.land/lipgloss/v2"

	"github.com/agent-dev/agent/tui/markdown"
)

// styles are the colours and text styles of every component, chosen for a
// dark or a light terminal background. Colour is dropped by the terminal
// output (NO_COLOR, a dumb terminal) without the styles knowing.
type styles struct {
	Dark bool
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

// newStyles returns the styles for a dark or light background.
func newStyles(dark bool) *styles {
	ld := lipgloss.LightDark(dark)
	pick := func(light, darkc string) color.Color { return ld(lipgloss.Color(light), lipgloss.Color(darkc)) }
	accent := pick("#5A56E0", "#9D8CFF")
	dim := pick("#8A8A8A", "#6C6C6C")
	green := pick("#1A7F37", "#3FB950")
	red := pick("#CF222E", "#F85149")
	yellow := pick("#9A6700", "#D29922")
	fg := pick("#1F2328", "#E6EDF3")
	mdStyle := markdown.Light
	if dark {
		mdStyle = markdown.Dark
	}
	return &styles{
		Dark:         dark,
		Markdown:     markdown.NewRenderer(mdStyle),
		User:         lipgloss.NewStyle().Foreground(fg).Bold(true),
		UserMark:     lipgloss.NewStyle().Foreground(accent).Bold(true),
		Reasoning:    lipgloss.NewStyle().Foreground(dim).Italic(true),
		Error:        lipgloss.NewStyle().Foreground(red).Bold(true),
		Note:         lipgloss.NewStyle().Foreground(dim),
		Dim:          lipgloss.NewStyle().Foreground(dim),
		ToolName:     lipgloss.NewStyle().Foreground(accent).Bold(true),
		ToolArg:      lipgloss.NewStyle().Foreground(fg),
		ToolOK:       lipgloss.NewStyle().Foreground(green),
		ToolFailed:   lipgloss.NewStyle().Foreground(red),
		ToolRunning:  lipgloss.NewStyle().Foreground(yellow),
		ToolOutput:   lipgloss.NewStyle().Foreground(dim),
		ToolSelected: lipgloss.NewStyle().Foreground(accent),
		Approval:     lipgloss.NewStyle().Foreground(yellow).Bold(true),
		Key:          lipgloss.NewStyle().Foreground(accent).Bold(true),
		DiffAdd:      lipgloss.NewStyle().Foreground(green),
		DiffDel:      lipgloss.NewStyle().Foreground(red),
		DiffHunk:     lipgloss.NewStyle().Foreground(accent),
		Status:       lipgloss.NewStyle().Foreground(dim),
		StatusWarn:   lipgloss.NewStyle().Foreground(red).Bold(true),
		DiagError:    lipgloss.NewStyle().Foreground(red),
		DiagWarn:     lipgloss.NewStyle().Foreground(yellow),
	}
}
