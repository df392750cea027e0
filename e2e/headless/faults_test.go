package headless

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

func TestPromptArgumentWithoutPrintFlagIsHeadlessWhenStdoutIsNotATerminal(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.Text("headless"))
	res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Args: e2e.AgentArgs(srv, "what is this?")})
	if res.Code != 0 || res.Stdout != "headless\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
	}
}

func TestStandardInputFromAFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "input.txt")
	os.WriteFile(path, []byte("file contents\n"), 0o644)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	srv := scripted.New(t, scripted.Text("ok"))
	res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Stdin: f, Args: e2e.AgentArgs(srv, "-p", "summarise")})
	if res.Code != 0 || !strings.Contains(e2e.LastUserText(srv.Requests()[0]), "```stdin\nfile contents\n```") {
		t.Errorf("exit %d, user message %q", res.Code, e2e.LastUserText(srv.Requests()[0]))
	}
}

func TestAgentsMDGoesIntoTheSystemPrompt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("Always run make check.\n"), 0o644)
	srv := scripted.New(t, scripted.Text("ok"))
	res := e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "-p", "hi")})
	sys := srv.Requests()[0].Chat.Messages[0].Text()
	if res.Code != 0 || !strings.Contains(sys, "Always run make check.") || !strings.Contains(sys, time.Now().Format("2006-01-02")) ||
		!strings.Contains(sys, "Platform: ") {
		t.Errorf("exit %d, system prompt:\n%s", res.Code, sys)
	}
}

func TestRetryIsReportedAndTheAnswerArrives(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.Error(503, "overloaded").WithRetryAfter("0"), scripted.Text("after retry"))
	res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Args: append(e2e.AgentArgs(srv, "-p", "--output-format", "stream-json", "hi"), "--max-retries", "2")})
	if res.Code != 0 {
		t.Fatalf("exit %d: %s", res.Code, res.Stderr)
	}
	var retries int
	for _, o := range e2e.JSONLines(t, res.Stdout) {
		if o["type"] == "retry" {
			retries++
			if !strings.Contains(o["error"].(string), "503") {
				t.Errorf("retry event %v should name the status", o)
			}
		}
		if o["type"] == "result" && o["answer"] != "after retry" {
			t.Errorf("result %v", o)
		}
	}
	if retries != 1 {
		t.Errorf("%d retry events, want 1", retries)
	}
}

func TestSilentStreamFailsAfterTheIdleTimeout(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.Text("starts then stalls").WithPieceSize(5).StallAfter(2))
	res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Args: e2e.AgentArgs(srv, "-p", "--idle-timeout", "3s", "hi")})
	if res.Code != 1 || !strings.Contains(res.Stderr, "silent") || !strings.HasPrefix("starts then stalls", strings.TrimSpace(res.Stdout)) ||
		strings.TrimSpace(res.Stdout) == "" {
		t.Errorf("exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
	}
}

func TestCutStreamFailsWithThePartialTextKept(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.Text("this answer gets cut").WithPieceSize(5).CutAfter(2))
	res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Args: e2e.AgentArgs(srv, "-p", "hi")})
	if res.Code != 1 || !strings.Contains(res.Stderr, "cut off") || strings.TrimSpace(res.Stdout) == "" ||
		!strings.HasPrefix("this answer gets cut", strings.TrimSpace(res.Stdout)) {
		t.Errorf("exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
	}
	if len(srv.Requests()) != 1 {
		t.Errorf("with --max-retries 0 a cut stream must not be retried; the server got %d requests", len(srv.Requests()))
	}
}
