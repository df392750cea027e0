package lsp

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/agent-dev/agent/internal/scriptedlsp"
)

// BenchmarkEditWithAHangingServer is an edit's wait when its server never
// answers: the wait (300 ms here) plus what the manager adds past it
// (BENCHMARKS.md records the difference).
func BenchmarkEditWithAHangingServer(b *testing.B) {
	for _, mode := range []string{scriptedlsp.ModeHang, scriptedlsp.ModeHangAfterInit} {
		b.Run(mode, func(b *testing.B) {
			dir := b.TempDir()
			os.WriteFile(dir+"/a.txt", []byte("ok\n"), 0o644)
			root, _ := os.OpenRoot(dir)
			defer root.Close()
			m := New(Options{Dir: dir, Root: root, Servers: []Server{scripted(mode)}, Wait: 300 * time.Millisecond, Env: os.Environ()})
			defer m.Close()
			for i := 0; b.Loop(); i++ {
				os.WriteFile(dir+"/a.txt", []byte{byte('a' + i%26), '\n'}, 0o644)
				if rep := m.Change(context.Background(), []string{"a.txt"}); len(rep.Notes) != 1 {
					b.Fatal(rep)
				}
			}
		})
	}
}
