package tui

import (
	"strings"
	"testing"

	"github.com/agent-dev/agent/providers/fake"
)

// Custom commands are completed and listed by /help with their
// descriptions, and sending one starts a turn with the text as typed (the
// turn runner expands it); /hooks shows what the front-end lists.
func TestCustomCommandsAreCompletedListedAndSent(t *testing.T) {
	srv := fake.New(fake.Text("Sent."))
	cfg := config(t, srv, t.TempDir(), nil)
	cfg.Commands = []CustomCommand{{Name: "review", ArgumentHint: "[file]", Description: "Review a file carefully"},
		{Name: "help", Description: "shadowed by the built-in"}}
	cfg.Hooks = func() string { return "PreToolUse Bash: check.sh (.claude/settings.json)" }
	d := newDriver(t, cfg)
	d.key("/rev")
	if s := d.screen(); !strings.Contains(s, "/review") || !strings.Contains(s, "Review a file carefully") {
		t.Errorf("completion lacks the custom command:\n%s", s)
	}
	d.key("tab")
	if v := d.m.input.Value(); v != "/review " {
		t.Errorf("tab completed to %q", v)
	}
	d.m.input.SetValue("")
	d.typeAndSend("/help")
	d.untilShows("Review a file carefully")
	if strings.Contains(d.screen(), "shadowed") {
		t.Error("a custom command named like a built-in one is listed")
	}
	d.typeAndSend("/hooks")
	d.untilShows("check.sh (.claude/settings.json)")
	d.typeAndSend("/review main.go")
	d.untilShows("Sent.")
	if reqs := srv.Requests(); len(reqs) != 1 || reqs[0].Messages[len(reqs[0].Messages)-1].Text() != "/review main.go" {
		t.Errorf("requests %+v", reqs)
	}
}
