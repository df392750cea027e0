package lsp

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// repoCopy copies this repository's tracked files into a temporary
// directory (the benchmarks edit them).
func repoCopy(b *testing.B) string {
	b.Helper()
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		b.Skipf("not in a git checkout: %v", err)
	}
	src := strings.TrimSpace(string(top))
	files, err := exec.Command("git", "-C", src, "ls-files").Output()
	if err != nil {
		b.Fatal(err)
	}
	dst := b.TempDir()
	for _, f := range strings.Split(strings.TrimSpace(string(files)), "\n") {
		data, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			continue // a file deleted in the work tree
		}
		p := filepath.Join(dst, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dst
}

// editTarget is the file the benchmarks edit and the change they make:
// a new line that breaks nothing, and back.
const editTarget = "lsp/diff.go"

// BenchmarkGoplsEditWarm is an edit's added wall time with gopls warm on
// this repository: the change sent, the new diagnostics awaited, the
// report made (the edit itself excluded); of a file six packages import
// (lsp/diff.go), and of one none does (cmd/doctor.go).
func BenchmarkGoplsEditWarm(b *testing.B) {
	for _, target := range []string{editTarget, "cmd/doctor.go"} {
		b.Run(strings.ReplaceAll(target, "/", "_"), func(b *testing.B) { goplsEditWarm(b, target) })
	}
}

func goplsEditWarm(b *testing.B, editTarget string) {
	gopls, err := exec.LookPath("gopls")
	if err != nil {
		b.Skip("gopls is not installed")
	}
	dir := repoCopy(b)
	root, _ := os.OpenRoot(dir)
	defer root.Close()
	srv := known[0]
	srv.Command = gopls

	m := New(Options{Dir: dir, Root: root, Servers: []Server{srv}, Wait: time.Minute, Env: os.Environ()})
	defer m.Close()
	orig, _ := os.ReadFile(filepath.Join(dir, editTarget))
	m.Open(editTarget)
	if rep := m.Change(context.Background(), []string{editTarget}); len(rep.Notes) > 0 {
		b.Fatal(rep.Notes)
	}
	b.ResetTimer()
	for i := range b.N {
		text := orig
		if i%2 == 0 {
			text = append(append([]byte{}, orig...), "\n// a comment\n"...)
		}
		b.StopTimer()
		if err := os.WriteFile(filepath.Join(dir, editTarget), text, 0o644); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if rep := m.Change(context.Background(), []string{editTarget}); len(rep.Notes)+len(rep.New) > 0 {
			b.Fatalf("%+v", rep)
		}
	}
}

// BenchmarkGoplsFirstEdit is the first edit of a session on this
// repository: gopls started by a read, then the edit's wait (which waits
// for the start and the first check as well).
func BenchmarkGoplsFirstEdit(b *testing.B) {
	gopls, err := exec.LookPath("gopls")
	if err != nil {
		b.Skip("gopls is not installed")
	}
	dir := repoCopy(b)
	root, _ := os.OpenRoot(dir)
	defer root.Close()
	srv := known[0]
	srv.Command = gopls
	orig, _ := os.ReadFile(filepath.Join(dir, editTarget))
	b.ResetTimer()
	for range b.N {
		m := New(Options{Dir: dir, Root: root, Servers: []Server{srv}, Wait: time.Minute, Env: os.Environ()})
		m.Open(editTarget)
		b.StopTimer()
		if err := os.WriteFile(filepath.Join(dir, editTarget), append(append([]byte{}, orig...), "\n// a comment\n"...), 0o644); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		rep := m.Change(context.Background(), []string{editTarget})
		b.StopTimer()
		m.Close()
		os.WriteFile(filepath.Join(dir, editTarget), orig, 0o644)
		if len(rep.Notes)+len(rep.New) > 0 {
			b.Fatalf("%+v", rep)
		}
		b.StartTimer()
	}
}
