//go:build unix

package shell

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/background"
)

// newBackground is a session's background processes for a test.
func newBackground(t *testing.T) *background.Manager {
	t.Helper()
	m, err := background.New(background.Config{Dir: filepath.Join(t.TempDir(), "bg"), KillGrace: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// sendToBackgroundOnce runs command in the foreground and, once its
// output holds want, sends it to the background as Ctrl+B does; it
// returns the call's result.
func sendToBackgroundOnce(t *testing.T, tool *Tool, m *background.Manager, command, want string) tools.Result {
	t.Helper()
	raw, _ := json.Marshal(map[string]any{"command": command})
	seen := make(chan struct{})
	var once bool
	call := tools.Call{Args: raw, Progress: func(p tools.Progress) {
		if !once && strings.Contains(p.Text, want) {
			once = true
			close(seen)
		}
	}}
	done := make(chan tools.Result, 1)
	go func() {
		res, err := tool.Run(t.Context(), call)
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	select {
	case <-seen:
	case <-time.After(hangLimit):
		t.Fatalf("the command did not print %q", want)
	}
	if n := m.SendToBackground(); n != 1 {
		t.Fatalf("SendToBackground sent %d commands, want 1", n)
	}
	select {
	case res := <-done:
		return res
	case <-time.After(hangLimit):
		t.Fatal("the call did not return once its command was sent to the background")
	}
	panic("unreachable")
}

// A command sent to the background returns its output so far in the
// call's result; bash_output then returns what came after, not that
// output a second time.
func TestOutputShownWhenACommandIsSentToTheBackgroundIsNotReadAgain(t *testing.T) {
	m := newBackground(t)
	tool := newTool(t, Config{Background: m, Detachable: true})
	gate := filepath.Join(t.TempDir(), "gate")
	res := sendToBackgroundOnce(t, tool, m, "echo early-line; while [ ! -e "+gate+" ]; do sleep 0.01; done; echo late-line", "early-line")
	if !strings.Contains(res.Content, "bash_1") || !strings.Contains(res.Content, "early-line") {
		t.Fatalf("the call's result does not give the id and the output so far: %q", res.Content)
	}
	os.WriteFile(gate, nil, 0o600)
	for deadline := time.Now().Add(hangLimit); m.Running() > 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the command did not end")
		}
	}
	raw, _ := json.Marshal(map[string]any{"bash_id": "bash_1"})
	out, err := background.Tools(m)[0].Run(t.Context(), tools.Call{Args: raw})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Content, "late-line") {
		t.Errorf("bash_output does not return the output after the command went to the background: %q", out.Content)
	}
	if strings.Contains(out.Content, "early-line") {
		t.Errorf("bash_output returns again the output the model read in the call's result: %q", out.Content)
	}
}
