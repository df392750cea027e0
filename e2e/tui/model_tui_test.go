//go:build linux

package tui

import (
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// /model without a name lists the server's models (GET /v1/models) in a
// picker; choosing one switches the session's model, as the next request
// shows.
func TestModelPickerInTheInterface(t *testing.T) {
	t.Parallel()
	srv := scripted.NewWithOptions(t, scripted.Options{Models: []string{"scripted-model", "walrus-large", "walrus-small"}},
		scripted.Text("Answered by the small walrus."))
	s := e2e.StartTmux(t, t.TempDir(), nil, []string{"--base-url", srv.URL(), "--model", "scripted-model", "--max-retries", "0"})
	s.WaitFor("Ask about this repository")
	s.Send("/model")
	screen := s.WaitFor("walrus-small")
	if !strings.Contains(screen, "scripted-model  (in use)") {
		t.Errorf("the model in use is not marked:\n%s", screen)
	}
	s.Send("small")
	s.WaitFor("Model: walrus-small.")
	s.Send("hello")
	s.WaitFor("Answered by the small walrus.")
	if got := srv.Requests()[0].Chat.Model; got != "walrus-small" {
		t.Errorf("the request went to model %q, want walrus-small", got)
	}
	s.Quit()
}
