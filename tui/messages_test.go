package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/agent-dev/agent/tui/markdown"
)

func TestMessageGoldens(t *testing.T) {
	st := goldenStyles()
	st.Markdown = markdown.NewRenderer(markdown.Dark)
	user := newUserItem(st, "Where is the HTTP server started, and which port does it listen on when no flag is given?")
	answer := newAssistantItem(st)
	answer.appendReasoning("The user asks about the server.\nI should grep for ListenAndServe.\nThen read the file.\nThen answer with the port.")
	answer.appendText("The server starts in `cmd/serve.go`:\n\n- it calls `http.ListenAndServe`\n- the default port is **8080**\n\n```go\nhttp.ListenAndServe(\":8080\", mux)\n```\n")
	answer.finish()
	for _, w := range []int{50, 100} {
		requireGolden(t, fmt.Sprintf("message_user_%d", w), user.Render(w))
		requireGolden(t, fmt.Sprintf("message_assistant_%d", w), answer.Render(w))
		requireGolden(t, fmt.Sprintf("message_note_%d", w), newNoteItem(st, "Picked grep, read_file.").Render(w))
		requireGolden(t, fmt.Sprintf("message_error_%d", w), newErrorItem(st, "Error: the model server refused the API key (HTTP 401): Incorrect API key provided").Render(w))
	}
}

func TestMessagesFitTheWidth(t *testing.T) {
	st := newStyles(true)
	answer := newAssistantItem(st)
	answer.appendReasoning(strings.Repeat("thinking hard ", 40))
	answer.appendText(strings.Repeat("A long line of the answer with a `code span` and **bold**. ", 20) + "\n\n| a | b |\n|---|---|\n| 1 | 2 |\n")
	items := []item{newUserItem(st, strings.Repeat("wide 漢字 prompt ", 30)), answer}
	for _, w := range []int{20, 47, 100} {
		for i, it := range items {
			for _, line := range strings.Split(it.Render(w), "\n") {
				if got := ansi.StringWidth(line); got > w {
					t.Errorf("item %d at width %d has a line of %d columns: %q", i, w, got, ansi.Strip(line))
				}
			}
		}
	}
}
