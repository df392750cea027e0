package headless

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// --export-session to something that is not a regular file (a FIFO here;
// /dev/null, /dev/stdout, /dev/full and /proc/self/fd/N are the same case)
// must write to it, not rename a regular file over it. writePrivate
// (cmd/export_session.go) renames its temporary file over the path: run
// as root, `--export-session /dev/null` replaces the machine's /dev/null
// with a 0600 regular file owned by root (every other user's writes to
// /dev/null then fail). This test uses a FIFO in a temporary directory so
// that it is safe to run; do NOT turn it into one on /dev/null.
func TestExportSessionToAFIFOWritesIntoIt(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "export.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	// A reader, open before the run, so that a writer's open does not block.
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	srv := scripted.New(t, scripted.Text("fine"))
	res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Args: e2e.AgentArgs(srv, "--db", filepath.Join(t.TempDir(), "a.db"),
		"-p", "--export-session", fifo, "hi")})
	if res.Code != 0 {
		t.Fatalf("exit %d: %s", res.Code, res.Stderr)
	}
	fi, err := os.Lstat(fifo)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO at %s was replaced by a %v", fifo, fi.Mode())
	}
	b, _ := io.ReadAll(r)
	if !strings.Contains(string(b), `"id"`) {
		t.Errorf("the FIFO's reader got %q, want the session", b)
	}
}

// An export to a directory that does not exist names the path asked for,
// not the temporary file beside it (".x.json.123.tmp").
func TestExportSessionToAMissingDirectoryNamesThePath(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "missing", "x.json")
	srv := scripted.New(t, scripted.Text("fine"))
	res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Args: e2e.AgentArgs(srv, "--db", filepath.Join(t.TempDir(), "a.db"),
		"-p", "--export-session", path, "hi")})
	if res.Code != 1 || res.Stdout != "fine\n" {
		t.Fatalf("exit %d, stdout %q: want 1 and the answer", res.Code, res.Stdout)
	}
	if !strings.Contains(res.Stderr, path) || strings.Contains(res.Stderr, ".tmp") {
		t.Errorf("stderr %q: want the path given, not the temporary file's", res.Stderr)
	}
}
