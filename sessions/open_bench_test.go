package sessions_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/sessions"
)

// BenchmarkOpen opens a database of one session with 1 MiB of messages,
// as the next process finds it: "closed", after a process closed the store
// (SQLite copied the write-ahead log into the database file), or "left",
// after one left it at its exit (Store.Leave: the log is there to recover,
// about 250 pages of 4 KiB). The store's close after each open is not
// timed.
func BenchmarkOpen(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	src := filepath.Join(dir, "src", "agent.db")
	s, err := sessions.Open(ctx, src)
	if err != nil {
		b.Fatal(err)
	}
	rec := s.Recorder(create(b, s, dir, "bench").ID)
	for i := range 250 {
		if err := rec.AppendMessage(ctx, userMsg(strings.Repeat("word ", 800)+string(rune('a'+i%26))), zeroUsage); err != nil {
			b.Fatal(err)
		}
	}
	left := filepath.Join(dir, "left")
	copyFiles(b, src, left, "", "-wal") // as the exit finds them: the log not copied into the file
	if fi, err := os.Stat(filepath.Join(left, "agent.db-wal")); err != nil || fi.Size() < 1<<20 {
		b.Fatalf("the log left is %v (%v), want 1 MiB or more", fi, err)
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	closed := filepath.Join(dir, "closed")
	copyFiles(b, src, closed, "")
	for _, c := range []struct{ name, from string }{{"closed", closed}, {"left", left}} {
		b.Run(c.name, func(b *testing.B) {
			run := filepath.Join(b.TempDir(), "agent.db")
			for b.Loop() {
				b.StopTimer()
				os.Remove(run + "-wal")
				os.Remove(run + "-shm")
				copyFiles(b, filepath.Join(c.from, "agent.db"), filepath.Dir(run), "", "-wal")
				b.StartTimer()
				s, err := sessions.Open(ctx, run)
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				s.Close()
				b.StartTimer()
			}
		})
	}
}

// copyFiles copies the files path+suffix that exist into the directory to.
func copyFiles(b *testing.B, path, to string, suffixes ...string) {
	b.Helper()
	if err := os.MkdirAll(to, 0o700); err != nil {
		b.Fatal(err)
	}
	for _, suf := range suffixes {
		in, err := os.Open(path + suf)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			b.Fatal(err)
		}
		out, err := os.Create(filepath.Join(to, filepath.Base(path)+suf))
		if err != nil {
			b.Fatal(err)
		}
		_, err = io.Copy(out, in)
		in.Close()
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}
