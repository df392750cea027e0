package host_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/turn"
)

// fixture is a host as a front-end opens it, whose every request the fake
// model answers: a working directory, a config file and a session database
// of its own, all in the test's temporary directory.
type fixture struct {
	dir    string // the working directory
	config string // the config file
	db     string // the session database
	model  *fake.Provider
	h      *host.Host
}

// sandboxOff is added to every fixture's config: the policy then decides
// commands the same way on every machine (where namespaces work and where
// they do not).
const sandboxOff = "\n[sandbox]\nmode = \"off\"\n"

// newFixture opens a host whose config file is config (plus sandboxOff)
// and whose requests model answers. The host is closed when the test ends,
// after the sessions the test opened.
func newFixture(t *testing.T, model *fake.Provider, config string) *fixture {
	t.Helper()
	tmp := t.TempDir()
	f := &fixture{dir: filepath.Join(tmp, "work"), config: filepath.Join(tmp, "config", "agent", "config.toml"),
		db: filepath.Join(tmp, "data", "agent.db"), model: model}
	for _, d := range []string{f.dir, filepath.Dir(f.config), filepath.Dir(f.db)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, f.config, config+sandboxOff)
	env := map[string]string{"XDG_CONFIG_HOME": filepath.Join(tmp, "config"), "XDG_DATA_HOME": filepath.Join(tmp, "data")}
	h, err := host.Open(t.Context(), host.Config{
		Flags:    host.Flags{Model: "m", BaseURL: "http://127.0.0.1:1/v1", ConfigPath: f.config, DB: f.db, MaxRetries: -1},
		Getenv:   func(k string) string { return env[k] },
		Provider: model,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	f.h = h
	return f
}

// open opens a session for fe (in the fixture's directory unless req
// names one); it is closed when the test ends, if the test did not.
func (f *fixture) open(t *testing.T, req host.Request, fe host.FrontEnd) *host.Session {
	t.Helper()
	if req.Dir == "" {
		req.Dir = f.dir
	}
	s, err := f.h.OpenSession(t.Context(), req, fe)
	if err != nil {
		t.Fatalf("OpenSession(%+v): %v", req, err)
	}
	t.Cleanup(s.Close)
	return s
}

// path is rel in the working directory.
func (f *fixture) path(rel string) string { return filepath.Join(f.dir, rel) }

// turnResult is what a turn showed its front-end.
type turnResult struct {
	events []loop.Event
	done   loop.Done
}

// runTurn runs a turn on prompt and reads its events until the channel
// closes.
func runTurn(t *testing.T, s *host.Session, prompt string) turnResult {
	t.Helper()
	var r turnResult
	for ev := range s.Turn(t.Context(), turn.Text(prompt)) {
		r.events = append(r.events, ev)
		if d, ok := ev.(loop.Done); ok {
			r.done = d
		}
	}
	return r
}

// result is the finished call id of the turn; the test fails without one.
func (r turnResult) result(t *testing.T, id string) loop.ToolCallFinished {
	t.Helper()
	for _, ev := range r.events {
		if f, ok := ev.(loop.ToolCallFinished); ok && f.ID == id {
			return f
		}
	}
	t.Fatalf("no result of call %s among the turn's events (it ended %s: %v)", id, r.done.Reason, r.done.Err)
	return loop.ToolCallFinished{}
}

// call is a tool call of the fake model.
func call(id, name, args string) fake.Call {
	return fake.Call{ID: id, Name: name, Arguments: args}
}

// toolResults are the tool results req carries, by call id: what the
// model read of its calls.
func toolResults(req providers.Request) map[string]providers.ToolResult {
	out := map[string]providers.ToolResult{}
	for _, m := range req.Messages {
		for _, p := range m.Parts {
			if r, ok := p.(providers.ToolResult); ok {
				out[r.CallID] = r
			}
		}
	}
	return out
}

// lastUser is the text of the last user message of req.
func lastUser(req providers.Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if m := req.Messages[i]; m.Role == providers.RoleUser && m.Text() != "" {
			return m.Text()
		}
	}
	return ""
}

// write writes text to path, making its directory.
func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// exists reports whether path exists.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// asker is a front-end's Asker that records every question and answers
// each with answer.
type asker struct {
	answer loop.Decision
	mu     sync.Mutex
	asked  []host.Question
}

func (a *asker) Ask(_ context.Context, q host.Question) loop.Decision {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, q)
	return a.answer
}

// questions are the questions asked so far.
func (a *asker) questions() []host.Question {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]host.Question(nil), a.asked...)
}

// holder is another process holding a session's lease: this test binary
// started as holdLease.
type holder struct {
	cmd *exec.Cmd
}

// holdSession starts another process that takes session id's lease in db
// and returns once it holds it. The process gives the lease back and exits
// when the test ends (or at release).
func holdSession(t *testing.T, db, id string) *holder {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), asHolder+"="+db+"|"+id)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		if err := cmd.Wait(); err != nil {
			t.Errorf("the lease's holder: %v", err)
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if strings.TrimSpace(line) != "held" {
		t.Fatalf("the holder did not take the lease: %q, %v", line, err)
	}
	return &holder{cmd: cmd}
}

// pid is the holder's process id.
func (h *holder) pid() int { return h.cmd.Process.Pid }
