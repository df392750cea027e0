//go:build linux

package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// TestTypingAtAnApprovalAnswersNothing is the sequence of issue 14: a bash
// question appears and the person, who had not seen it, types "make sure
// it is fast". Nothing is approved (the `a` of "make" once allowed the
// command for the session and the `m` was lost) and the whole text is in
// the input. Then the person clears the input, denies with instructions,
// and the model reads them with the denial.
func TestTypingAtAnApprovalAnswersNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "b", Name: "bash", Arguments: `{"command":"echo ran > ran.txt"}`}),
		scripted.Text("Understood: go build it is."),
		scripted.Text("It will be fast."),
	)
	s := e2e.StartTmux(t, dir, nil, []string{"--base-url", srv.URL(), "--model", "scripted-model", "--db", filepath.Join(t.TempDir(), "a.db")})
	s.WaitFor("Ask about this repository")
	s.Send("build the project")
	s.WaitFor("Allow bash to run this command?")
	s.Text("make sure it is fast")
	screen := s.WaitFor("│ make sure it is fast")
	if !strings.Contains(screen, "Allow bash to run this command?") {
		t.Fatalf("typing answered the question:\n%s", screen)
	}
	// Enter with text in the input goes to the prompt, never to the
	// question. Keys are handled in order: once the marker shows, Enter
	// was.
	s.Keys("Enter")
	s.Text("§")
	screen = s.WaitFor("§")
	if !strings.Contains(screen, "Allow bash to run this command?") {
		t.Fatalf("Enter with text in the input answered the question:\n%s", screen)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran.txt")); err == nil {
		t.Fatalf("the command ran although nobody answered:\n%s", screen)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("%d requests: the question was answered", n)
	}
	// Empty the input (Ctrl+U deletes to the line's start; Ctrl+A first
	// for a queued or kept text on a second line), then answer on purpose.
	s.Keys("C-a", "C-k", "C-u")
	s.WaitFor("↑/↓ choose")
	s.Keys("Down", "Down", "Down", "Enter")
	s.WaitFor("tell the model what to do instead")
	s.Send("use go build instead")
	s.WaitFor("Understood: go build it is.")
	if _, err := os.Stat(filepath.Join(dir, "ran.txt")); err == nil {
		t.Error("the denied command ran")
	}
	reqs := srv.Requests()
	if got := e2e.ToolResults(reqs[len(reqs)-1])["b"]; !strings.Contains(got, "denied") || !strings.Contains(got, "use go build instead") {
		t.Errorf("the model read %q, want the denial with the instructions", got)
	}
	// No quitting here: where a prompt entered during a turn is queued, the
	// text typed above is sent now (the script's last reply answers it).
}

// TestShiftTabSwitchesToAutoAndDenyRulesHold: Shift+Tab switches the
// permission mode from ask to auto, shown in the status line; a file
// change then proceeds without a question, while a command a deny rule
// names is still denied.
func TestShiftTabSwitchesToAutoAndDenyRulesHold(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	e2e.WriteFile(t, dir, "keep.txt", "keep\n")
	config := filepath.Join(t.TempDir(), "config.toml")
	os.WriteFile(config, []byte("[permissions]\ndeny = [\"rm\"]\n"), 0o644)
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "w", Name: "write_file", Arguments: `{"path":"new.txt","content":"made in auto\n"}`}),
		scripted.ToolCalls(scripted.Call{ID: "r", Name: "bash", Arguments: `{"command":"rm keep.txt"}`}),
		scripted.Text("Wrote new.txt; rm was refused."),
	)
	s := e2e.StartTmux(t, dir, nil, []string{"--base-url", srv.URL(), "--model", "scripted-model", "--config", config, "--db", filepath.Join(t.TempDir(), "a.db")})
	s.WaitFor("ask mode")
	s.Keys("BTab")
	s.WaitFor("auto mode")
	s.Send("write a file, then remove keep.txt")
	screen := s.WaitFor("Wrote new.txt; rm was refused.")
	if strings.Contains(screen, "Allow") {
		t.Errorf("auto mode asked:\n%s", screen)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "new.txt")); err != nil || string(data) != "made in auto\n" {
		t.Errorf("new.txt = %q, %v: the change did not proceed in auto", data, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "keep.txt")); err != nil {
		t.Errorf("the deny rule did not hold in auto: %v", err)
	}
	reqs := srv.Requests()
	if got := e2e.ToolResults(reqs[len(reqs)-1])["r"]; !strings.Contains(got, "rule") {
		t.Errorf("the model read %q for rm, want the deny rule", got)
	}
	s.Keys("BTab")
	s.WaitFor("plan mode")
	s.Keys("BTab")
	s.WaitFor("ask mode")
	s.Quit()
}

// TestShiftTabAtAWaitingQuestionDecidesItInAuto: a file change waits for
// its answer in ask mode; Shift+Tab switches to auto, where file changes
// proceed without a question, so the waiting change proceeds too (rather
// than waiting for an answer the person just said not to ask for).
func TestShiftTabAtAWaitingQuestionDecidesItInAuto(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "w", Name: "write_file", Arguments: `{"path":"new.txt","content":"made after the switch\n"}`}),
		scripted.Text("Wrote new.txt."),
	)
	s := e2e.StartTmux(t, dir, nil, []string{"--base-url", srv.URL(), "--model", "scripted-model", "--db", filepath.Join(t.TempDir(), "a.db")})
	s.WaitFor("ask mode")
	s.Send("write a file")
	s.WaitFor("Allow this change to")
	s.Keys("BTab")
	screen := s.WaitFor("Wrote new.txt.")
	if !strings.Contains(screen, "auto mode") || !strings.Contains(screen, "allowed in auto mode") {
		t.Errorf("the switch is not shown:\n%s", screen)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "new.txt")); err != nil || string(data) != "made after the switch\n" {
		t.Errorf("new.txt = %q, %v: the waiting change did not proceed in auto", data, err)
	}
	s.Quit()
}
