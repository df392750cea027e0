package tui

import (
	"fmt"
	"strings"
)

// promptQueue holds the prompts sent while a turn runs, oldest first. They
// are shown under the conversation and sent, one per turn, when the running
// turn ends with an answer. A turn that ends otherwise (cancelled, failed,
// cut off) keeps them queued: Enter on an empty input then sends the next.
type promptQueue struct {
	st    *styles
	items []string
}

// maxQueueLines caps the queued prompts shown; the rest are counted.
const maxQueueLines = 3

func (q *promptQueue) len() int { return len(q.items) }

// push queues text last.
func (q *promptQueue) push(text string) { q.items = append(q.items, text) }

// next takes the oldest prompt out of the queue.
func (q *promptQueue) next() (string, bool) {
	if len(q.items) == 0 {
		return "", false
	}
	text := q.items[0]
	q.items = q.items[1:]
	return text, true
}

// newest takes the newest prompt out of the queue (to edit or drop it).
func (q *promptQueue) newest() (string, bool) {
	if len(q.items) == 0 {
		return "", false
	}
	text := q.items[len(q.items)-1]
	q.items = q.items[:len(q.items)-1]
	return text, true
}

// Render returns the queued prompts, one line each (the first line of a
// longer prompt), cut to width, with the keys that edit and drop them on
// the last line; "" when the queue is empty.
func (q *promptQueue) Render(width int) string {
	if len(q.items) == 0 {
		return ""
	}
	var lines []string
	shown := q.items
	if len(shown) > maxQueueLines {
		lines = append(lines, q.st.Dim.Render(fmt.Sprintf("  … %d more queued", len(shown)-maxQueueLines)))
		shown = shown[len(shown)-maxQueueLines:]
	}
	for _, text := range shown {
		first, _, more := strings.Cut(strings.TrimSpace(text), "\n")
		if more {
			first += " …"
		}
		lines = append(lines, q.st.Dim.Render("  ↳ queued: ")+first)
	}
	lines = append(lines, q.st.Dim.Render("    ↑ edit the last · ctrl+x drop it · sent when the turn ends"))
	return strings.Join(fitWidth(lines, width), "\n")
}
