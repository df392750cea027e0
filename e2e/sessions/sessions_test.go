//go:build linux

package sessions

import (
	"context"
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
	_ "modernc.org/sqlite"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

func TestContinueSendsTheWholeHistoryWithOneSystemPrompt(t *testing.T) {
	t.Parallel()
	dir, db := t.TempDir(), filepath.Join(t.TempDir(), "agent.db")
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644)
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "r1", Name: "read_file", Arguments: `{"path":"a.txt"}`}),
		scripted.Text("It says alpha."),
		scripted.Text("Still alpha."),
	)
	first := e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "--db", db, "-p", "what does a.txt say?")})
	if first.Code != 0 {
		t.Fatalf("first run: exit %d: %s", first.Code, first.Stderr)
	}
	second := e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "--db", db, "-c", "-p", "and now?")})
	if second.Code != 0 || second.Stdout != "Still alpha.\n" {
		t.Fatalf("continue: exit %d, stdout %q, stderr %q", second.Code, second.Stdout, second.Stderr)
	}
	reqs := srv.Requests()
	got := e2e.Roles(reqs[2])
	want := []string{"system", "user:what does a.txt say?", "assistant call:r1", "tool result:r1", "assistant:It says alpha.", "user:and now?"}
	if strings.Join(got, " | ") != strings.Join(want, " | ") {
		t.Errorf("continued request:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if reqs[2].Chat.Messages[0].Text() != reqs[0].Chat.Messages[0].Text() {
		t.Errorf("the continued session's system prompt changed")
	}
}

func TestResumeBySessionIDPrefix(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "agent.db")
	srv := scripted.New(t, scripted.Text("first answer"), scripted.Text("second answer"))
	first := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Args: e2e.AgentArgs(srv, "--db", db, "-p", "--output-format", "json", "remember zebras")})
	id := e2e.SessionIDOf(t, first.Stdout)
	// From another directory, by a prefix of the id.
	second := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Args: e2e.AgentArgs(srv, "--db", db, "-r", id[:6], "-p", "what did I say?")})
	if second.Code != 0 {
		t.Fatalf("resume: exit %d: %s", second.Code, second.Stderr)
	}
	got := e2e.Roles(srv.Requests()[1])
	if strings.Join(got, " | ") != "system | user:remember zebras | assistant:first answer | user:what did I say?" {
		t.Errorf("resumed request: %v", got)
	}
}

func TestSessionErrorsAreUsageErrors(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "agent.db")
	srv := scripted.New(t)
	for name, args := range map[string][]string{
		"unknown id":          {"-r", "0123456789ab", "-p", "hi"},
		"nothing to continue": {"-c", "-p", "hi"},
		"resume needs an id":  {"-r", "-p", "hi"},
	} {
		res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Args: e2e.AgentArgs(srv, append([]string{"--db", db}, args...)...)})
		if res.Code != 2 {
			t.Errorf("%s: exit %d, stderr %q", name, res.Code, res.Stderr)
		}
	}
	os.WriteFile(filepath.Join(t.TempDir(), "x"), nil, 0o644)
	corrupt := filepath.Join(t.TempDir(), "corrupt.db")
	os.WriteFile(corrupt, []byte("this is not a database, not at all, not even close......................................................................"), 0o644)
	res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Args: e2e.AgentArgs(srv, "--db", corrupt, "-p", "hi")})
	if res.Code != 1 || !strings.Contains(res.Stderr, corrupt) {
		t.Errorf("corrupt database: exit %d, stderr %q", res.Code, res.Stderr)
	}
}

// TestCrashMidStreamLosesOnlyTheStreamingReply kills the agent with
// SIGKILL while the second reply streams: the prompt, the first reply's tool
// call and its result survive, and the next run's request is valid.
func TestCrashMidStreamLosesOnlyTheStreamingReply(t *testing.T) {
	t.Parallel()
	dir, db := t.TempDir(), filepath.Join(t.TempDir(), "agent.db")
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644)
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "r1", Name: "read_file", Arguments: `{"path":"a.txt"}`}),
		scripted.Text("This reply is cut by the crash.").WithPieceSize(4).HoldAfterEvents(3, hold),
		scripted.Text("Recovered."),
	)
	agent := e2e.Agent(t)
	ctx, cancel := context.WithTimeout(context.Background(), e2e.HangLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, agent, e2e.AgentArgs(srv, "--db", db, "-p", "read a.txt")...)
	cmd.Dir, cmd.Env = dir, e2e.BaseEnv(t)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if err := srv.WaitRequests(ctx, 2); err != nil { // the second reply is streaming
		t.Fatal(err)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()

	res := e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "--db", db, "-c", "-p", "go on")})
	if res.Code != 0 || res.Stdout != "Recovered.\n" {
		t.Fatalf("continue after the crash: exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
	}
	reqs := srv.Requests()
	got := e2e.Roles(reqs[2])
	want := []string{"system", "user:read a.txt", "assistant call:r1", "tool result:r1", "user:go on"}
	if strings.Join(got, " | ") != strings.Join(want, " | ") {
		t.Errorf("request after the crash:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(e2e.ToolResults(reqs[2])["r1"], "alpha") {
		t.Errorf("the completed tool result was lost: %q", e2e.ToolResults(reqs[2])["r1"])
	}
	e2e.AssertCallsAnswered(t, reqs[2:])
}

// TestCrashDuringACommandLeavesAnInterruptedResult kills the agent with
// SIGKILL while a command runs: the call has no result, and the next run
// sends a synthetic "interrupted" one so the request is valid.
func TestCrashDuringACommandLeavesAnInterruptedResult(t *testing.T) {
	t.Parallel()
	dir, db := t.TempDir(), filepath.Join(t.TempDir(), "agent.db")
	fifo := filepath.Join(dir, "pid.fifo")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "b1", Name: "bash", Arguments: `{"command":"sleep 300 & echo $! > pid.fifo; wait"}`}),
		scripted.Text("Picked up again."),
	)
	agent := e2e.Agent(t)
	ctx, cancel := context.WithTimeout(context.Background(), e2e.HangLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, agent, e2e.AgentArgs(srv, "--db", db, "--allow-bash", "-p", "run it")...)
	cmd.Dir, cmd.Env = dir, e2e.BaseEnv(t)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sleeper := e2e.ChildFromFIFO(t, fifo) // the command is running
	// SIGKILL of the agent leaves the command's child behind: it is
	// killed, and awaited, before the test's directory goes.
	t.Cleanup(func() { unix.Kill(sleeper.Pid, unix.SIGKILL); sleeper.Ended() })
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()

	res := e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "--db", db, "-c", "-p", "what happened?")})
	if res.Code != 0 || res.Stdout != "Picked up again.\n" {
		t.Fatalf("continue after the crash: exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
	}
	req := srv.Requests()[1]
	if got := e2e.ToolResults(req)["b1"]; got != "interrupted" {
		t.Errorf("the unanswered call's result is %q, want the synthetic \"interrupted\"", got)
	}
	e2e.AssertCallsAnswered(t, []scripted.Request{req})
}

// TestTheKeyNeverReachesTheDatabase runs a session whose command prints the
// environment, then searches every file of the database for the key.
func TestTheKeyNeverReachesTheDatabase(t *testing.T) {
	t.Parallel()
	const key = "sk-e2e-never-stored-42"
	dbDir := t.TempDir()
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "e", Name: "bash", Arguments: `{"command":"env"}`}),
		scripted.Text("Done."),
	)
	res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Env: []string{"OPENAI_API_KEY=" + key},
		Args: e2e.AgentArgs(srv, "--db", filepath.Join(dbDir, "agent.db"), "--allow-bash", "-p", "show the environment")})
	if res.Code != 0 {
		t.Fatalf("exit %d: %s", res.Code, res.Stderr)
	}
	files, _ := filepath.Glob(filepath.Join(dbDir, "*"))
	if len(files) == 0 {
		t.Fatal("no database files")
	}
	for _, f := range files {
		data, _ := os.ReadFile(f)
		if strings.Contains(string(data), key) {
			t.Errorf("%s holds the API key", f)
		}
	}
}

func TestDatabaseThatCannotBeCreatedExitsWithCode1(t *testing.T) {
	t.Parallel()
	blocker := filepath.Join(t.TempDir(), "file")
	os.WriteFile(blocker, []byte("x"), 0o644)
	srv := scripted.New(t)
	res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Args: e2e.AgentArgs(srv, "--db", filepath.Join(blocker, "agent.db"), "-p", "hi")})
	if res.Code != 1 || !strings.Contains(res.Stderr, "session database") {
		t.Errorf("exit %d, stderr %q", res.Code, res.Stderr)
	}
}

// TestLockedDatabaseExitsWithCode1 holds an exclusive lock on the database
// from this process: the agent waits as long as db_lock_wait says (here a
// second, beyond SQLite's 5 s busy timeout of one try; the default is two
// minutes), then fails clearly.
func TestLockedDatabaseExitsWithCode1(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "agent.db")
	srv := scripted.New(t, scripted.Text("first"))
	if res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Args: e2e.AgentArgs(srv, "--db", db, "-p", "create the database")}); res.Code != 0 {
		t.Fatalf("exit %d: %s", res.Code, res.Stderr)
	}
	sqldb, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer sqldb.Close()
	conn, err := sqldb.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(context.Background(), "BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(context.Background(), "ROLLBACK")
	cfg := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(cfg, []byte("db_lock_wait = \"1s\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Args: e2e.AgentArgs(srv, "--config", cfg, "--db", db, "-p", "hi")})
	if res.Code != 1 || !strings.Contains(res.Stderr, "locked") {
		t.Errorf("exit %d, stderr %q", res.Code, res.Stderr)
	}
}
