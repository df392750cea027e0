// Package tui is the interactive interface of agent: one top-level Bubble Tea
// model (model.go) that consumes the loop's events, and small components
// with a Render(width int) string method: the conversation pane and its
// items (user and assistant messages, tool blocks, notes, errors), the
// status line and the input. It is the only package that imports Bubble
// Tea, lipgloss and glamour.
package tui

// item is one block of the conversation pane.
type item interface {
	// Render returns the item at width columns, as lines joined by "\n"
	// with no trailing newline. A finished item renders once per width and
	// caches the result; a changing one (a streaming answer, a running tool)
	// re-renders only what changed.
	Render(width int) string
}

// restyler is an item that caches renderings made with the styles; restyle
// drops them when the styles change (the terminal reported its background
// after the item was drawn).
type restyler interface{ restyle() }

// linesItem is an item that keeps its rendering as lines (an assistant
// message, which changes only at its end while it streams): the pane takes
// the lines as they are instead of splitting Render's string on every View,
// so a frame costs the lines that changed and the lines shown, not the
// whole item.
type linesItem interface {
	item
	// Lines returns Render(width) split into lines; an item that renders
	// "" has none. The slice is the item's own: callers must not modify
	// it, and it is valid until the item changes or is rendered again.
	Lines(width int) []string
}
