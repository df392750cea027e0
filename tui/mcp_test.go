package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/fake"
)

// TestMCPCommand: /mcp shows what the MCP hook reports, or how to
// configure a server when there is none.
func TestMCPCommand(t *testing.T) {
	cfg := config(t, fake.New(), t.TempDir(), nil)
	d := newDriver(t, cfg)
	d.typeAndSend("/mcp")
	d.untilShows("No MCP servers configured")

	cfg.MCP = func() string { return "everything: running, 13 tools" }
	d = newDriver(t, cfg)
	d.typeAndSend("/mcp")
	d.untilShows("everything: running, 13 tools")
}

// TestMCPLoginCommand: /mcp login NAME says the login started, runs the
// front-end's login for that server outside Update, and shows its outcome.
func TestMCPLoginCommand(t *testing.T) {
	cfg := config(t, fake.New(), t.TempDir(), nil)
	asked := make(chan string, 1)
	cfg.MCPLogin = func(name string) string {
		asked <- name
		return "Logged in to MCP server " + name + "; the running server uses the new tokens from its next request."
	}
	d := newDriver(t, cfg)
	d.typeAndSend("/mcp login linear")
	d.untilShows("Logged in to MCP server linear; the running server uses")
	if s := d.screen(); !strings.Contains(s, "Logging in to MCP server linear: the browser opens") {
		t.Errorf("no note that the login started:\n%s", s)
	}
	if name := <-asked; name != "linear" {
		t.Errorf("logged in to %q", name)
	}
	d.typeAndSend("/mcp login")
	d.untilShows("Say which server: /mcp login NAME.")
}

// TestNoticesShownOnce: a notice (an MCP server that failed) appears once
// as a note in the conversation, and the interface goes on.
func TestNoticesShownOnce(t *testing.T) {
	cfg := config(t, fake.New(fake.Text("still here")), t.TempDir(), nil)
	notices := make(chan string, 2)
	cfg.Notices = notices
	d := newDriver(t, cfg)
	notices <- "MCP server broken failed: exec: no such file"
	d.untilShows("MCP server broken failed")
	d.typeAndSend("hi")
	d.untilShows("still here")
	if n := strings.Count(d.screen(), "MCP server broken failed"); n != 1 {
		t.Errorf("the notice shows %d times:\n%s", n, d.screen())
	}
	close(notices)
}

// TestQuestionWithText: a question that is no call of the loop (whether to
// start a project's MCP server) shows its own text; yes allows it, and Esc
// dismisses it without an answer; each block then ends with the outcome.
func TestQuestionWithText(t *testing.T) {
	approver := NewApprover()
	d := newDriver(t, config(t, fake.New(), t.TempDir(), approver))
	ask := func(id string) <-chan loop.Decision {
		ch := make(chan loop.Decision, 1)
		go func() {
			ch <- approver.Ask(context.Background(), Question{
				Call: providers.ToolCall{ID: id, Name: "start project MCP server " + id, Arguments: `{}`},
				Text: "Start MCP server " + id + "? (answer remembered)",
			})
		}()
		return ch
	}
	got := ask("one")
	d.untilShows("Start MCP server one? (answer remembered)")
	d.answer(choiceOnce)
	if dec := <-got; !dec.Allow {
		t.Errorf("yes: %+v", dec)
	}
	d.untilShows("allowed")
	got = ask("two")
	d.untilShows("Start MCP server two? (answer remembered)")
	d.key("esc")
	if dec := <-got; dec.Allow || dec.Why != WhyDismissed {
		t.Errorf("esc: %+v, want dismissed", dec)
	}
	d.until("the second question to end", func(s string) bool { return !strings.Contains(s, "Start MCP server two?") })
}

// /new while a question with its own text waits (a project's MCP server,
// asked outside any turn) keeps the question in view: the new
// conversation's pane had lost its block, and the menu, gone from the
// screen, still took Enter.
func TestNewConversationKeepsTheWaitingQuestionInView(t *testing.T) {
	approver := NewApprover()
	d := newDriver(t, config(t, fake.New(), t.TempDir(), approver))
	got := make(chan loop.Decision, 1)
	go func() {
		got <- approver.Ask(context.Background(), Question{
			Call: providers.ToolCall{ID: "trust", Name: "start project MCP server hub", Arguments: `{}`},
			Text: "Start MCP server hub? (answer remembered)",
		})
	}()
	d.untilShows("Start MCP server hub? (answer remembered)")
	d.typeAndSend("/new")
	d.untilShows("New conversation.")
	d.wait(approvalQuiet)
	if s := d.screen(); !strings.Contains(s, "Start MCP server hub? (answer remembered)") || !strings.Contains(s, "↑/↓ choose") {
		t.Fatalf("after /new the waiting question is not shown:\n%s", s)
	}
	d.key("down") // "No (remembered)", the second answer
	d.key("enter")
	if dec := <-got; dec.Allow || dec.Why == WhyDismissed {
		t.Errorf("no: %+v, want a denial", dec)
	}
	d.untilShows("✗ start project MCP server hub")
}
