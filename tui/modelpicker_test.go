package tui

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/agent-dev/agent/providers/fake"
)

func TestModelWithoutANameOffersTheServersModels(t *testing.T) {
	srv := fake.New(fake.Text("From the other model."))
	cfg := config(t, srv, t.TempDir(), nil)
	cfg.Models = func(context.Context) ([]string, error) {
		return []string{"scripted-model", "big-model", "small-model"}, nil
	}
	d := newDriver(t, cfg)
	d.typeAndSend("/model")
	d.untilShows("small-model")
	if !strings.Contains(d.screen(), "scripted-model  (in use)") {
		t.Errorf("the model in use is not marked:\n%s", d.screen())
	}
	d.key("sma") // typing filters
	if strings.Contains(d.screen(), "big-model") {
		t.Errorf("the filter kept big-model:\n%s", d.screen())
	}
	d.key("enter")
	d.untilShows("Model: small-model.")
	d.typeAndSend("hello")
	d.untilShows("From the other model.")
	if got := srv.Requests()[0].Model; got != "small-model" {
		t.Errorf("the request went to %q, want small-model", got)
	}
}

func TestModelPickerSaysWhenTheListFails(t *testing.T) {
	cfg := config(t, fake.New(), t.TempDir(), nil)
	cfg.Models = func(context.Context) ([]string, error) { return nil, errors.New("HTTP 404") }
	d := newDriver(t, cfg)
	d.typeAndSend("/model")
	d.untilShows("Listing the models: HTTP 404")
	d.key("esc")
	d.untilShows("Ask about this repository")
	if d.m.modelPick != nil || d.m.cfg.Model != "scripted-model" {
		t.Errorf("esc left the picker open or changed the model")
	}
}

func TestInitAsksForAnAgentsFileWrittenWithApproval(t *testing.T) {
	dir := t.TempDir()
	srv := fake.New(
		// The test's tools have no write_file; a command writes the file.
		fake.ToolCalls(fake.Call{ID: "w", Name: "bash", Arguments: `{"command":"echo '# Agents' > AGENTS.md"}`}),
		fake.Text("Wrote AGENTS.md."),
	)
	d := newDriver(t, config(t, srv, dir, NewApprover()))
	d.typeAndSend("/init")
	d.until("the approval question", func(string) bool { return d.m.approving != nil })
	if _, err := os.Stat(dir + "/AGENTS.md"); err == nil {
		t.Fatal("AGENTS.md was written before it was approved")
	}
	d.answer(choiceOnce)
	d.untilShows("Wrote AGENTS.md.")
	if data, err := os.ReadFile(dir + "/AGENTS.md"); err != nil || string(data) != "# Agents\n" {
		t.Errorf("AGENTS.md = %q, %v", data, err)
	}
	if sent := srv.Requests()[0].Messages[0].Text(); !strings.Contains(sent, "Write an AGENTS.md") {
		t.Errorf("/init sent %q", sent)
	}
}
