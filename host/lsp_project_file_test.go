//go:build unix

package host

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-dev/agent/lsp"
)

// A repository's .lsp.json that is a named pipe, or a link to an endless
// device, does not hold the session's start (nor agent doctor).
func TestARepositorysLspJSONThatIsNotAFileDoesNotHoldTheStart(t *testing.T) {
	for name, mk := range map[string]func(path string) error{
		"fifo":     func(p string) error { return syscall.Mkfifo(p, 0o644) },
		"dev-zero": func(p string) error { return os.Symlink("/dev/zero", p) },
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := mk(filepath.Join(dir, projectLSPFile)); err != nil {
				t.Skip(err)
			}
			done := make(chan []string, 1)
			go func() {
				_, warnings := lspServers(lsp.Settings{}, dir, nil)
				done <- warnings
			}()
			select {
			case warnings := <-done:
				if !strings.Contains(strings.Join(warnings, "\n"), projectLSPFile) {
					t.Errorf("no warning names %s: %q", projectLSPFile, warnings)
				}
			case <-time.After(10 * time.Second):
				// Unblock the reader so that the test's goroutine ends.
				if f, err := os.OpenFile(filepath.Join(dir, projectLSPFile), os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					f.Close()
				}
				t.Fatal("reading the repository's .lsp.json hangs")
			}
		})
	}
}

// The same holds for a repository's .mcp.json.
func TestARepositorysMCPJSONThatIsAPipeDoesNotHoldTheStart(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, projectMCPFile), 0o644); err != nil {
		t.Skip(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := projectServers(dir)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("err = %v, want one that says it is not a regular file", err)
		}
	case <-time.After(10 * time.Second):
		if f, err := os.OpenFile(filepath.Join(dir, projectMCPFile), os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		t.Fatal("reading the repository's .mcp.json hangs")
	}
}
