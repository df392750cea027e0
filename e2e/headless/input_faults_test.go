//go:build linux

package headless

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// tricklingWriter sends a byte every 50 ms and never ends, as
// `tail -f log` does, until the test ends.
type tricklingWriter struct{ stop chan struct{} }

func (w tricklingWriter) Read(p []byte) (int, error) {
	select {
	case <-w.stop:
		return 0, io.EOF
	case <-time.After(50 * time.Millisecond):
		p[0] = 'x'
		return 1, nil
	}
}

func TestAnEndlessPipeIsCutAndSaidSo(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.Text("watched"))
	stop := make(chan struct{})
	defer close(stop)
	// The pipe never ends: run's hang limit fails the test if the agent
	// waits for its end.
	res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Stdin: tricklingWriter{stop},
		Args: e2e.AgentArgs(srv, "-p", "--stdin-max-read", "1s", "watch")})
	if res.Code != 0 || res.Stdout != "watched\n" || !strings.Contains(res.Stderr, "still open") {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
	}
	if got := e2e.LastUserText(srv.Requests()[0]); !strings.Contains(got, "xxx") || !strings.Contains(got, "cut there") {
		t.Errorf("user message %q", got)
	}
}

func TestBinaryInputIsRefused(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t)
	gz := []byte("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03" + strings.Repeat("\xff\x00\x10", 1000))
	res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Stdin: bytes.NewReader(gz), Args: e2e.AgentArgs(srv, "-p", "what is this")})
	if res.Code != 2 || !strings.Contains(res.Stderr, "not text") || !strings.Contains(res.Stderr, "gzip") || len(srv.Requests()) != 0 {
		t.Errorf("exit %d, %d requests, stderr %q", res.Code, len(srv.Requests()), res.Stderr)
	}
}

func TestAWhiteSpacePromptIsAUsageError(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t)
	for _, inv := range []e2e.Invocation{
		{Args: e2e.AgentArgs(srv, "-p", "   ")},
		{Stdin: strings.NewReader(" \n\t\n"), Args: e2e.AgentArgs(srv, "-p")},
	} {
		inv.Dir = t.TempDir()
		res := e2e.Run(t, inv)
		if res.Code != 2 || !strings.Contains(res.Stderr, "white space") || len(srv.Requests()) != 0 {
			t.Errorf("exit %d, stderr %q", res.Code, res.Stderr)
		}
	}
}

func TestAReaderThatClosesEarlyEndsTheOutputQuietly(t *testing.T) {
	t.Parallel()
	dir, db := t.TempDir(), filepath.Join(t.TempDir(), "agent.db")
	srv := scripted.New(t, scripted.Text(strings.Repeat("a long answer line\n", 10000)))
	first := e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "--db", db, "-p", "--output-format", "json", "hi")})
	id := e2e.SessionIDOf(t, first.Stdout)

	for _, args := range [][]string{
		{"sessions", "show", "--db", db, id},
		e2e.AgentArgs(scripted.New(t, scripted.Text(strings.Repeat("more\n", 20000))), "--db", db, "-p", "again"),
	} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		r.Close() // the reader went away, as head does after its lines
		agent := e2e.Agent(t)
		ctx, cancel := context.WithTimeout(context.Background(), e2e.HangLimit)
		cmd := exec.CommandContext(ctx, agent, args...)
		cmd.Dir, cmd.Env, cmd.Stdout = dir, e2e.BaseEnv(t), w
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err = cmd.Run()
		w.Close()
		cancel()
		ee, _ := err.(*exec.ExitError)
		if ee == nil || ee.ExitCode() != 141 || stderr.Len() != 0 {
			t.Errorf("%v: %v, stderr %q; want exit 141 and nothing said", args[:2], err, stderr.String())
		}
	}
}

func TestDoctorReportsADamagedSessionDatabase(t *testing.T) {
	t.Parallel()
	dir, db := t.TempDir(), filepath.Join(t.TempDir(), "agent.db")
	srv := scripted.New(t, scripted.Text("ok"), scripted.Text("ok"))
	if res := e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "--db", db, "-p", "hi")}); res.Code != 0 {
		t.Fatalf("exit %d: %s", res.Code, res.Stderr)
	}
	os.WriteFile(db, bytes.Repeat([]byte("damage"), 4000), 0o600)
	os.Remove(db + "-wal")
	os.Remove(db + "-shm")
	res := e2e.Run(t, e2e.Invocation{Dir: dir, Args: []string{"doctor", "--sandbox", "off", "--db", db, "--base-url", srv.URL(), "--model", "m"}})
	if res.Code != 1 || !strings.Contains(res.Stdout, "DAMAGED") || !strings.Contains(res.Stdout, "mv ") {
		t.Errorf("exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
	}
}
