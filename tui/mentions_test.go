package tui

import (
	"os"
	"strings"
	"testing"

	"github.com/agent-dev/agent/mention"
	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/tools/fs"
)

func TestAtCompletesAPathAndSendAttachesIt(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(dir+"/internal", 0o755)
	os.WriteFile(dir+"/internal/walrus.go", []byte("package internal\n"), 0o644)
	os.WriteFile(dir+"/.gitignore", []byte("*.log\n"), 0o644)
	os.WriteFile(dir+"/walrus.log", []byte("noise\n"), 0o644)
	srv := fake.New(fake.Text("It declares a package."))
	cfg := config(t, srv, dir, nil)
	cfg.Mentions = newMentions(t, dir)
	d := newDriver(t, cfg)
	d.key("what is in @walr")
	d.untilShows("@internal/walrus.go")
	if strings.Contains(d.screen(), "walrus.log") {
		t.Errorf("an ignored file is offered:\n%s", d.screen())
	}
	d.key("tab")
	if got := d.m.input.Value(); got != "what is in @internal/walrus.go " {
		t.Fatalf("tab made the input %q", got)
	}
	d.key("enter")
	d.untilShows("It declares a package.")
	s := d.screen()
	if !strings.Contains(s, "Attached internal/walrus.go") || !strings.Contains(s, "❯ what is in @internal/walrus.go") {
		t.Errorf("the prompt or its attachment note is not shown:\n%s", s)
	}
	sent := srv.Requests()[0].Messages[0].Text()
	if !strings.Contains(sent, "<attached path=\"internal/walrus.go\">\n     1\tpackage internal\n</attached>") {
		t.Errorf("the request lacks the attachment: %q", sent)
	}
}

// A path with spaces completes in quotes, so that the mention sent is the
// whole path (unquoted, only its first word would be a mention).
func TestAtCompletesAPathWithSpacesInQuotes(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(dir+"/old plans", 0o755)
	os.WriteFile(dir+"/old plans/walrus notes.md", []byte("tusks\n"), 0o644)
	srv := fake.New(fake.Text("About tusks."))
	cfg := config(t, srv, dir, nil)
	cfg.Mentions = newMentions(t, dir)
	d := newDriver(t, cfg)
	d.key("see @old")
	d.untilShows("@old plans/")
	d.key("tab")
	if got := d.m.input.Value(); got != `see @"old plans/` {
		t.Fatalf("tab made the input %q, want the directory opened in quotes", got)
	}
	d.key("walrus n") // typing goes on inside the quotes, with completion
	d.untilShows("@old plans/walrus notes.md")
	d.key("tab")
	if got := d.m.input.Value(); got != `see @"old plans/walrus notes.md" ` {
		t.Fatalf("tab made the input %q", got)
	}
	d.key("enter")
	d.untilShows("About tusks.")
	sent := srv.Requests()[0].Messages[0].Text()
	if !strings.Contains(sent, "<attached path=\"old plans/walrus notes.md\">\n     1\ttusks\n</attached>") {
		t.Errorf("the request lacks the attachment: %q", sent)
	}
}

// newMentions returns the mentions of dir through the real file tools.
func newMentions(t *testing.T, dir string) *mention.Mentions {
	root := openRoot(t, dir)
	return mention.New(root, mention.Files{Read: fs.ReadFile(root), List: fs.ListFiles(root), Walk: fs.Files})
}
