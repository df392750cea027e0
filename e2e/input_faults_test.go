//go:build linux

package e2e

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
	res := run(t, invocation{dir: t.TempDir(), stdin: tricklingWriter{stop},
		args: agentArgs(srv, "-p", "--stdin-max-read", "1s", "watch")})
	if res.code != 0 || res.stdout != "watched\n" || !strings.Contains(res.stderr, "still open") {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	if got := lastUserText(srv.Requests()[0]); !strings.Contains(got, "xxx") || !strings.Contains(got, "cut there") {
		t.Errorf("user message %q", got)
	}
}

func TestBinaryInputIsRefused(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t)
	gz := []byte("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03" + strings.Repeat("\xff\x00\x10", 1000))
	res := run(t, invocation{dir: t.TempDir(), stdin: bytes.NewReader(gz), args: agentArgs(srv, "-p", "what is this")})
	if res.code != 2 || !strings.Contains(res.stderr, "not text") || !strings.Contains(res.stderr, "gzip") || len(srv.Requests()) != 0 {
		t.Errorf("exit %d, %d requests, stderr %q", res.code, len(srv.Requests()), res.stderr)
	}
}

func TestAWhiteSpacePromptIsAUsageError(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t)
	for _, inv := range []invocation{
		{args: agentArgs(srv, "-p", "   ")},
		{stdin: strings.NewReader(" \n\t\n"), args: agentArgs(srv, "-p")},
	} {
		inv.dir = t.TempDir()
		res := run(t, inv)
		if res.code != 2 || !strings.Contains(res.stderr, "white space") || len(srv.Requests()) != 0 {
			t.Errorf("exit %d, stderr %q", res.code, res.stderr)
		}
	}
}

func TestAReaderThatClosesEarlyEndsTheOutputQuietly(t *testing.T) {
	t.Parallel()
	dir, db := t.TempDir(), filepath.Join(t.TempDir(), "agent.db")
	srv := scripted.New(t, scripted.Text(strings.Repeat("a long answer line\n", 10000)))
	first := run(t, invocation{dir: dir, args: agentArgs(srv, "--db", db, "-p", "--output-format", "json", "hi")})
	id := sessionIDOf(t, first.stdout)

	for _, args := range [][]string{
		{"sessions", "show", "--db", db, id},
		agentArgs(scripted.New(t, scripted.Text(strings.Repeat("more\n", 20000))), "--db", db, "-p", "again"),
	} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		r.Close() // the reader went away, as head does after its lines
		ctx, cancel := context.WithTimeout(context.Background(), hangLimit)
		cmd := exec.CommandContext(ctx, binary, args...)
		cmd.Dir, cmd.Env, cmd.Stdout = dir, baseEnv(t), w
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
	if res := run(t, invocation{dir: dir, args: agentArgs(srv, "--db", db, "-p", "hi")}); res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	os.WriteFile(db, bytes.Repeat([]byte("damage"), 4000), 0o600)
	os.Remove(db + "-wal")
	os.Remove(db + "-shm")
	res := run(t, invocation{dir: dir, args: []string{"doctor", "--sandbox", "off", "--db", db, "--base-url", srv.URL(), "--model", "m"}})
	if res.code != 1 || !strings.Contains(res.stdout, "DAMAGED") || !strings.Contains(res.stdout, "mv ") {
		t.Errorf("exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
}
