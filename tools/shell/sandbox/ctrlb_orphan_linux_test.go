//go:build linux

package sandbox

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/background"
	"github.com/agent-dev/agent/tools/shell"
)

// ctrlBChild names the directory of the agent this test's binary plays
// when re-executed by TestACommandSentToTheBackgroundWithTheSandboxOffEndsWithAKilledAgent.
const ctrlBChild = "AGENT_REVIEW_CTRLB_CHILD"

// With the sandbox off, the person sends a running command to the
// background (Ctrl+B), then the agent is killed with SIGKILL: the
// command, a background process of the session now, must end with it,
// as one started with run_in_background does (no orphan ever).
func TestACommandSentToTheBackgroundWithTheSandboxOffEndsWithAKilledAgent(t *testing.T) {
	if dir := os.Getenv(ctrlBChild); dir != "" {
		ctrlBAgent(t, dir)
		return
	}
	dir := t.TempDir()
	agent := exec.Command(os.Args[0], "-test.run=^TestACommandSentToTheBackgroundWithTheSandboxOffEndsWithAKilledAgent$")
	agent.Env = append(os.Environ(), ctrlBChild+"="+dir)
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	defer agent.Process.Kill()
	var pid int
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(filepath.Join(dir, "adopted")); err == nil {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the agent did not send its command to the background")
		}
	}
	defer syscall.Kill(pid, syscall.SIGKILL)
	agent.Process.Signal(syscall.SIGKILL)
	agent.Wait()
	for deadline := time.Now().Add(5 * time.Second); runsStill(pid); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the command sent to the background (pid %d) outlived the agent killed with SIGKILL by 5 s", pid)
		}
	}
}

// ctrlBAgent is the agent: the sandbox off, a foreground command sent to
// the background, then waiting to be killed.
func ctrlBAgent(t *testing.T, dir string) {
	sb, err := New(Policy{Mode: Off, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	m, err := background.New(background.Config{Dir: filepath.Join(dir, "bg")})
	if err != nil {
		t.Fatal(err)
	}
	tool := shell.New(shell.Config{Dir: dir, Build: sb.Build, BuildBackground: sb.BuildBackground, Start: sb.Start, Background: m, Detachable: true})
	raw, _ := json.Marshal(map[string]any{"command": "echo $$ > pid.tmp && mv pid.tmp pid && exec sleep 600"})
	done := make(chan tools.Result, 1)
	go func() {
		res, _ := tool.Run(t.Context(), tools.Call{Args: raw})
		done <- res
	}()
	for {
		if _, err := os.Stat(filepath.Join(dir, "pid")); err == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	m.SendToBackground()
	<-done
	b, _ := os.ReadFile(filepath.Join(dir, "pid"))
	os.WriteFile(filepath.Join(dir, "adopted.tmp"), b, 0o600)
	os.Rename(filepath.Join(dir, "adopted.tmp"), filepath.Join(dir, "adopted"))
	select {} // until SIGKILL
}

// runsStill reports whether pid runs (a zombie is dead).
func runsStill(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	return !strings.HasPrefix(strings.TrimSpace(s[strings.LastIndexByte(s, ')')+1:]), "Z")
}
