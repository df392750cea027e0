//go:build unix

package host_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/conversation"
	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/sessions"
	"github.com/agent-dev/agent/tools/background"
	"github.com/agent-dev/agent/turn"
)

// bgArgs are bash's arguments for command in the background.
func bgArgs(command string) string {
	raw, _ := json.Marshal(map[string]any{"command": command, "run_in_background": true})
	return string(raw)
}

// allowSleep is a config whose rules let sleep run without a question.
const allowSleep = "[permissions]\nallow = [\"sleep\"]\n"

// waitEnded waits, on the Manager's change signals, until no process of
// m runs.
func waitEnded(t *testing.T, m *background.Manager) {
	t.Helper()
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	for m.Running() > 0 {
		select {
		case <-m.Changes():
		case <-deadline.C:
			t.Fatalf("the background processes did not end: %+v", m.List())
		}
	}
}

func TestABackgroundProcessThatExitsBetweenTurnsIsToldWithTheNextPrompt(t *testing.T) {
	model := fake.New(
		fake.ToolCalls(call("c1", "bash", bgArgs("echo built; exit 7"))),
		fake.Text("started"),
		fake.Text("noted"),
	)
	f := newFixture(t, model, "")
	s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeYolo})
	first := runTurn(t, s, "build in the background")
	if res := first.result(t, "c1"); res.IsError || !strings.Contains(res.Content, "bash_1") {
		t.Fatalf("the call did not start a background process: %q", res.Content)
	}
	waitEnded(t, s.Background())
	runTurn(t, s, "how did it go?")
	reqs := model.Requests()
	last := lastUser(reqs[len(reqs)-1])
	if !strings.Contains(last, "how did it go?") || !strings.Contains(last, "bash_1 (`echo built; exit 7`) exited with exit code 7") {
		t.Errorf("the next prompt does not tell of the exit: %q", last)
	}
	// Stored with the prompt: a resumed session's requests keep it.
	if hist := s.History(); !strings.Contains(hist[len(hist)-2].Text(), "exited with exit code 7") {
		t.Errorf("the note is not in the stored prompt: %q", hist[len(hist)-2].Text())
	}
}

func TestABackgroundProcessThatExitsMidTurnIsToldInTheNextRequest(t *testing.T) {
	release := make(chan struct{})
	gate := filepath.Join(t.TempDir(), "gate")
	script := "while [ ! -e " + gate + " ]; do sleep 0.01; done; exit 3"
	asked := make(chan struct{})
	replies := []fake.Reply{fake.ToolCalls(call("c1", "bash", bgArgs(script))),
		fake.ToolCalls(call("c2", "list_files", `{"path":"."}`)), fake.Text("done")}
	n := 0
	model := fake.NewFunc(func(providers.Request) fake.Reply {
		if n++; n == 2 { // the model thinks until the process has exited
			close(asked)
			<-release
		}
		return replies[min(n, len(replies))-1]
	})
	f := newFixture(t, model, "")
	s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeYolo})
	done := make(chan turnResult, 1)
	go func() { done <- runTurn(t, s, "go") }()
	<-asked
	write(t, gate, "") // the process exits while the model's next answer streams
	waitEnded(t, s.Background())
	close(release)
	<-done
	reqs := model.Requests()
	got := toolResults(reqs[2])["c2"].Content
	if !strings.Contains(got, "Background process bash_1 (`while [ ! -e ") || !strings.Contains(got, "exited with exit code 3") {
		t.Errorf("the request after the exit does not tell of it: %q", got)
	}
}

func TestACompactionRestatesTheRunningBackgroundProcesses(t *testing.T) {
	model := fake.NewFunc(func(req providers.Request) fake.Reply {
		switch {
		case req.ToolChoice == providers.ToolChoiceNone:
			return fake.Text("Goal: serve the site.")
		case len(toolResults(req)) == 0:
			return fake.ToolCalls(call("c1", "bash", bgArgs("exec sleep 600")))
		default:
			return fake.Text("serving")
		}
	})
	f := newFixture(t, model, allowSleep)
	s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeYolo})
	runTurn(t, s, "serve it")
	runTurn(t, s, "and now?")
	l, err := s.NewLoop("m", nil)
	if err != nil {
		t.Fatal(err)
	}
	for ev := range l.Compact(t.Context(), s.Conversation(), "") {
		if d, ok := ev.(loop.Done); ok && d.Err != nil {
			t.Fatalf("compacting: %v", d.Err)
		}
	}
	summary := s.History()[0].Text()
	if !strings.Contains(summary, "Goal: serve the site.") || !strings.Contains(summary, "- bash_1 (pid ") || !strings.Contains(summary, "exec sleep 600") {
		t.Errorf("the compacted conversation does not restate the running process: %q", summary)
	}
}

func TestClosingTheSessionStopsItsBackgroundProcesses(t *testing.T) {
	model := fake.New(fake.ToolCalls(call("c1", "bash", bgArgs("exec sleep 600"))), fake.Text("ok"))
	f := newFixture(t, model, allowSleep)
	s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeYolo})
	runTurn(t, s, "start")
	m := s.Background()
	pid := m.List()[0].PID
	if n := host.RunningBackground(f.db); n != 1 {
		t.Errorf("agent doctor would count %d running processes, want 1", n)
	}
	s.Close()
	if running(pid) {
		t.Errorf("process %d outlived its session", pid)
	}
	if n := host.RunningBackground(f.db); n != 0 {
		t.Errorf("after the session closed, %d are counted running", n)
	}
}

// running reports whether pid runs (a zombie is dead).
func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	st := string(b)
	return !strings.HasPrefix(strings.TrimSpace(st[strings.LastIndexByte(st, ')')+1:]), "Z")
}

// A resumed session's history names the background processes of its
// earlier runs (bash_1, stopped when that run ended): a process it starts
// now must not take one of those ids, or the model's reads of "bash_1"
// in its history and its new process are the same name for two things.
func TestAResumedSessionsNewBackgroundProcessDoesNotReuseAnIdItsHistoryNames(t *testing.T) {
	model := fake.New(
		fake.ToolCalls(call("c1", "bash", bgArgs("exec sleep 600"))), fake.Text("serving"),
		fake.ToolCalls(call("c2", "bash", bgArgs("exec sleep 600"))), fake.Text("serving again"),
	)
	f := newFixture(t, model, allowSleep)
	s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeYolo})
	first := runTurn(t, s, "serve it").result(t, "c1").Content
	s.Close()
	again := f.open(t, host.Request{Continue: true}, host.FrontEnd{Mode: host.ModeYolo})
	second := runTurn(t, again, "serve it again").result(t, "c2").Content
	if !strings.Contains(first, "bash_1") {
		t.Fatalf("the first run's process: %q", first)
	}
	if strings.Contains(second, "bash_1") {
		t.Errorf("the resumed session's new process takes the id its history gave an earlier one: %q", second)
	}
}

// In the interface, /new (or /sessions) goes on in another conversation
// of the same host session: a process the first conversation started
// that exits meanwhile is that conversation's to hear of, not the new
// one's, whose model never started it (and whose stored history would
// keep a note about a process it knows nothing of).
func TestABackgroundProcessesExitIsNotToldToAnotherConversation(t *testing.T) {
	gate := filepath.Join(t.TempDir(), "gate")
	model := fake.New(
		fake.ToolCalls(call("c1", "bash", bgArgs("while [ ! -e "+gate+" ]; do sleep 0.01; done; exit 4"))), fake.Text("started"),
		fake.Text("hello to the new conversation"),
	)
	f := newFixture(t, model, "")
	s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeYolo})
	runTurn(t, s, "build in the background")
	// /new: a conversation of its own, with a loop of the same session.
	rec, err := s.Store().Create(t.Context(), sessions.NewSession{Dir: f.dir, Model: "m", SystemPrompt: "fresh"})
	if err != nil {
		t.Fatal(err)
	}
	conv := conversation.New("fresh", s.Store().Recorder(rec.ID))
	l, err := s.NewLoop("m", s.Store().Recorder(rec.ID))
	if err != nil {
		t.Fatal(err)
	}
	write(t, gate, "")
	waitEnded(t, s.Background())
	for range s.Runner().Turn(t.Context(), l, conv, turn.Text("hi")) {
	}
	reqs := model.Requests()
	if got := lastUser(reqs[len(reqs)-1]); strings.Contains(got, "bash_1") {
		t.Errorf("the new conversation's prompt tells of the other conversation's process: %q", got)
	}
}
