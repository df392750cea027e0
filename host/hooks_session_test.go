//go:build unix

package host_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/providers/fake"
)

// SessionStart's hooks run when the front-end opens its session (source
// startup, then resume for -c), before any prompt, and what they print
// reaches the model with the first prompt; SessionEnd's run at Close.
func TestSessionStartAndSessionEndHooksRun(t *testing.T) {
	hooksDir := t.TempDir()
	started, fifo, ended := filepath.Join(hooksDir, "start.json"), filepath.Join(hooksDir, "ran"), filepath.Join(hooksDir, "end.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO here:", err)
	}
	// The SessionStart hook says it ran through the FIFO, which the test
	// reads before it sends a prompt.
	config := fmt.Sprintf("[[hooks.SessionStart]]\ncommand = %s\ntimeout = 30\n\n[[hooks.SessionEnd]]\ncommand = %s\n",
		strconv.Quote(fmt.Sprintf("cat > '%s'; echo ran > '%s'; echo 'The deploy password is swordfish.'", started, fifo)),
		strconv.Quote(fmt.Sprintf("cat > '%s'", ended)))
	model := fake.New(fake.Text("ok"), fake.Text("ok"))
	f := newFixture(t, model, config)

	for i, source := range []string{"startup", "resume"} {
		s := f.open(t, host.Request{Continue: i > 0}, host.FrontEnd{Mode: host.ModeAuto})
		awaitFIFO(t, fifo)
		if in := hookInput(t, started); in["hook_event_name"] != "SessionStart" || in["source"] != source || in["session_id"] != s.ID() {
			t.Errorf("SessionStart's input %v, want source %s of session %s", in, source, s.ID())
		}
		runTurn(t, s, "deploy it")
		if got := lastUser(model.Requests()[i]); !strings.Contains(got, "The deploy password is swordfish.") {
			t.Errorf("the prompt the model got: %q, want SessionStart's output with it", got)
		}
		if exists(ended) {
			t.Fatal("SessionEnd ran before Close")
		}
		s.Close()
		if in := hookInput(t, ended); in["hook_event_name"] != "SessionEnd" || in["reason"] != "exit" || in["session_id"] != s.ID() {
			t.Errorf("SessionEnd's input %v, want reason exit of session %s", in, s.ID())
		}
		if err := os.Remove(ended); err != nil {
			t.Fatal(err)
		}
	}
}

// awaitFIFO waits for a hook to write to the FIFO at path; a hook that
// never does fails the test after a long while.
func awaitFIFO(t *testing.T, path string) {
	t.Helper()
	got := make(chan error, 1)
	go func() {
		_, err := os.ReadFile(path) // blocks until the hook opens it, reads until it closes it
		got <- err
	}()
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the SessionStart hook did not run when the session opened")
	}
}
