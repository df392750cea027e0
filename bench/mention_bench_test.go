package bench

import (
	"context"
	"os"
	"testing"

	"github.com/agent-dev/agent/mention"
	"github.com/agent-dev/agent/tools/fs"
)

// BenchmarkMentionComplete measures "@" completion in the generated tree of
// 100,000 files (see benchTree): Walk is a completion after the cached
// listing expired (the walk of the tree and the ranking), Cached one that
// ranks the cached listing, what each keystroke costs within listMaxAge.
func BenchmarkMentionComplete(b *testing.B) {
	dir := benchTree(b)
	root, err := os.OpenRoot(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer root.Close()
	ctx := context.Background()
	b.Run("Walk", func(b *testing.B) {
		for b.Loop() {
			m := mention.New(root, mention.Files{Read: fs.ReadFile(root), List: fs.ListFiles(root), Walk: fs.Files})
			if got := m.Complete(ctx, "pkg3sub2file017", 4); len(got) == 0 {
				b.Fatal("no completion")
			}
		}
	})
	b.Run("Cached", func(b *testing.B) {
		m := mention.New(root, mention.Files{Read: fs.ReadFile(root), List: fs.ListFiles(root), Walk: fs.Files})
		m.Complete(ctx, "", 4)
		for b.Loop() {
			if got := m.Complete(ctx, "pkg3sub2file017", 4); len(got) == 0 {
				b.Fatal("no completion")
			}
		}
	})
}
