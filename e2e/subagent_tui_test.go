//go:build linux

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/internal/scripted"
)

// A defined agent's command needs approval: the question is asked in the
// parent's interface, labelled with the child's description, and once
// allowed the child runs it and its answer reaches the parent.
func TestSubagentAsksInTheParentsInterface(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".agent", "agents"), 0o755)
	write(t, dir, ".agent/agents/runner.md", "---\nname: runner\ndescription: Runs commands\ntools: Bash, Read\n---\nYou run commands.\n")
	args, _ := json.Marshal(map[string]string{"description": "make the file", "prompt": "make made.txt", "agent": "runner"})
	srv := scripted.NewWithOptions(t, scripted.Options{Respond: func(c scripted.ChatRequest) scripted.Reply {
		switch {
		case isChild(c) && !hasToolResults(c):
			return scripted.ToolCalls(scripted.Call{ID: "child_b", Name: "bash", Arguments: `{"command":"echo made > made.txt"}`})
		case isChild(c):
			return scripted.Text("made it")
		case !hasToolResults(c):
			return scripted.ToolCalls(scripted.Call{ID: "task_1", Name: "task", Arguments: string(args)})
		}
		return scripted.Text("The child says: " + toolOutputs(c)[0])
	}})
	s := startTmux(t, dir, nil, []string{"--base-url", srv.URL(), "--model", "scripted-model", "--tools", "all",
		"--db", filepath.Join(t.TempDir(), "a.db")})
	s.waitFor("Ask about this repository")
	s.send("make the file with a subagent")
	s.waitFor("make the file asks: Allow bash to run this command?")
	if _, err := os.Stat(filepath.Join(dir, "made.txt")); err == nil {
		t.Fatal("the child's command ran before anyone answered")
	}
	s.allowOnce()
	screen := s.waitFor("The child says: made it")
	if _, err := os.Stat(filepath.Join(dir, "made.txt")); err != nil {
		t.Errorf("the allowed command did not run: %v\n%s", err, screen)
	}
	if !strings.Contains(screen, "make the file (runner)") {
		t.Errorf("the task call's block is not titled by its description and agent:\n%s", screen)
	}
	s.quit()
}
