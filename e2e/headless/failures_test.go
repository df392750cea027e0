//go:build unix

package headless

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

func TestStepLimitExitsWithCode3(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "a", Name: "list_files", Arguments: `{}`}),
		scripted.ToolCalls(scripted.Call{ID: "b", Name: "list_files", Arguments: `{}`}),
	)
	res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Args: e2e.AgentArgs(srv, "-p", "--max-steps", "2", "loop forever")})
	if res.Code != 3 || !strings.Contains(res.Stdout, "Stopped after 2 steps") {
		t.Errorf("exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
	}
	e2e.AssertCallsAnswered(t, srv.Requests())
}

func TestUnreachableServerExitsWithCode1(t *testing.T) {
	t.Parallel()
	res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Args: []string{"-p", "--base-url", "http://127.0.0.1:1/v1", "--model", "m", "--max-retries", "0", "hi"}})
	if res.Code != 1 || !strings.Contains(res.Stderr, "cannot reach") {
		t.Errorf("exit %d, stderr %q", res.Code, res.Stderr)
	}
}

func TestRefusedKeyIsAnAuthenticationErrorAndNeverPrinted(t *testing.T) {
	t.Parallel()
	const key = "sk-e2e-secret-0123456789"
	srv := scripted.New(t, scripted.Error(401, "Incorrect API key provided"))
	res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Env: []string{"OPENAI_API_KEY=" + key}, Args: e2e.AgentArgs(srv, "-p", "-v", "hi")})
	if res.Code != 1 || !strings.Contains(res.Stderr, "API key") {
		t.Errorf("exit %d, stderr %q", res.Code, res.Stderr)
	}
	if strings.Contains(res.Stdout+res.Stderr, key) {
		t.Errorf("the API key was printed")
	}
	if got := srv.Requests()[0].Header.Get("Authorization"); got != "Bearer "+key {
		t.Errorf("Authorization header %q", got)
	}
}

func TestConfigurationErrorsExitWithCode2(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no model", []string{"-p", "--base-url", "http://127.0.0.1:1/v1", "hi"}, "AGENT_MODEL"},
		{"no key for a remote server", []string{"-p", "--model", "m", "hi"}, "OPENAI_API_KEY"},
		{"no prompt", []string{"-p", "--model", "m", "--base-url", "http://127.0.0.1:1/v1"}, "no prompt"},
		{"bad output format", []string{"-p", "--output-format", "xml", "hi"}, "stream-json"},
		{"unknown flag", []string{"--frobnicate"}, "frobnicate"},
		{"missing working directory", []string{"-p", "-C", "/no/such/dir", "hi"}, "/no/such/dir"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Args: tt.args})
			if res.Code != 2 || !strings.Contains(res.Stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and a mention of %q", res.Code, res.Stderr, tt.want)
			}
		})
	}
}

// TestToolProblemsAreResultsAndTheTurnGoesOn covers a tool the agent does not
// have, arguments that do not match the schema of a tool seen only as a
// brief, invalid JSON, and paths that leave the working directory.
func TestToolProblemsAreResultsAndTheTurnGoesOn(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t,
		scripted.ToolCalls(
			scripted.Call{ID: "c1", Name: "web_search", Arguments: `{"q":"x"}`},
			scripted.Call{ID: "c2", Name: "read_file", Arguments: `{"file":"go.mod"}`},
			scripted.Call{ID: "c3", Name: "grep", Arguments: `{"pattern":`},
			scripted.Call{ID: "c4", Name: "read_file", Arguments: `{"path":"../../../../etc/passwd"}`},
			scripted.Call{ID: "c5", Name: "read_file", Arguments: `{"path":"/etc/passwd"}`},
		),
		scripted.Text("Recovered."),
	)
	res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Args: e2e.AgentArgs(srv, "-p", "go")})
	if res.Code != 0 || res.Stdout != "Recovered.\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
	}
	results := e2e.ToolResults(srv.Requests()[1])
	checks := map[string][]string{
		"c1": {"unknown tool", "list_files, ", "memory_get, memory_search, memory_write, read_file"}, // lsp between when a language server is on PATH
		"c2": {"schema", `"path"`},
		"c3": {"not valid JSON"},
	}
	for id, wants := range checks {
		for _, w := range wants {
			if !strings.Contains(results[id], w) {
				t.Errorf("result %s = %q, want it to mention %q", id, results[id], w)
			}
		}
	}
	for _, id := range []string{"c4", "c5"} {
		if r := results[id]; r == "" || strings.Contains(r, "root:") {
			t.Errorf("result %s = %q: a path outside the working directory must be refused", id, r)
		}
	}
	e2e.AssertCallsAnswered(t, srv.Requests())
}

func TestBashInHeadlessMode(t *testing.T) {
	t.Parallel()
	const key = "sk-e2e-secret-bash"
	call := scripted.Call{ID: "b1", Name: "bash", Arguments: `{"command":"echo made > made.txt; env"}`}

	// In ask mode nobody can be asked: the command is denied.
	srv := scripted.New(t, scripted.ToolCalls(call), scripted.Text("Could not."))
	dir := t.TempDir()
	res := e2e.Run(t, e2e.Invocation{Dir: dir, Env: []string{"OPENAI_API_KEY=" + key}, Args: e2e.AgentArgs(srv, "-p", "--permission-mode", "ask", "make a file")})
	if res.Code != 0 {
		t.Fatalf("exit %d: %s", res.Code, res.Stderr)
	}
	if got := e2e.ToolResults(srv.Requests()[1])["b1"]; !strings.Contains(got, "--permission-mode auto") {
		t.Errorf("denied bash result %q should say how to allow it", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "made.txt")); err == nil {
		t.Errorf("a denied command ran")
	}

	// The headless default (auto) runs it in the sandbox (Linux and macOS;
	// the suite runs where there is one).
	srv = scripted.New(t, scripted.ToolCalls(call), scripted.Text("Made it."))
	res = e2e.Run(t, e2e.Invocation{Dir: dir, Env: []string{"OPENAI_API_KEY=" + key}, Args: e2e.AgentArgs(srv, "-p", "make a file")})
	if res.Code != 0 || res.Stdout != "Made it.\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
	}
	got := e2e.ToolResults(srv.Requests()[1])["b1"]
	if !strings.Contains(got, "PWD="+dir) {
		t.Errorf("bash should run in the working directory; env output:\n%s", got)
	}
	if strings.Contains(got, key) {
		t.Errorf("the API key reached the command's environment")
	}
	if data, err := os.ReadFile(filepath.Join(dir, "made.txt")); err != nil || string(data) != "made\n" {
		t.Errorf("made.txt = %q, %v", data, err)
	}
}

func TestInterruptKeepsThePartialAnswer(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	srv := scripted.New(t, scripted.Text("The answer is partial and then more.").WithPieceSize(4).HoldAfterEvents(3, hold))
	cmd, sc, stderr := e2e.StartAgent(t, t.TempDir(), e2e.AgentArgs(srv, "-p", "--output-format", "stream-json", "hi"))
	e2e.WaitForEvent(t, sc, "text_delta")
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	objs := e2e.WaitForEvent(t, sc, "result")
	res := objs[len(objs)-1]
	if code := e2e.ExitCodeOf(t, cmd); code != 130 {
		t.Errorf("exit %d, want 130; stderr %s", code, stderr)
	}
	answer, _ := res["answer"].(string)
	if res["stop_reason"] != "cancelled" || answer == "" || !strings.HasPrefix("The answer is partial and then more.", answer) {
		t.Errorf("result %v: want cancelled with the partial answer", res)
	}
}
