package fs

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/protect"
)

// BenchmarkGrepGuarded greps a tree of 2,000 files in directories four
// deep with the credentials guard of a session (a working directory that
// holds a .ssh directory), as the agent's grep runs: each file the walk
// reaches is checked against the credentials paths.
func BenchmarkGrepGuarded(b *testing.B) {
	dir := b.TempDir()
	for i := range 2000 {
		p := filepath.Join(dir, fmt.Sprintf("a%d", i%5), fmt.Sprintf("b%d", i%7), fmt.Sprintf("c%d", i%11), fmt.Sprintf("f%d.go", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("package x\n\nfunc f() {}\n"), 0o644)
	}
	os.MkdirAll(filepath.Join(dir, ".ssh"), 0o700)
	os.WriteFile(filepath.Join(dir, ".ssh", "id_ed25519"), []byte("func main() {}\n"), 0o600)
	root, err := os.OpenRoot(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer root.Close()
	guard := protect.NewGuard(protect.New(protect.Paths{Dir: dir, Credentials: []string{filepath.Join(dir, ".ssh")}}, os.ReadFile))
	var g tools.Tool
	for _, t := range ToolsWith(root, Options{Protect: guard}) {
		if t.Definition().Name == "grep" {
			g = t
		}
	}
	args, _ := json.Marshal(map[string]any{"pattern": "func main"})
	for b.Loop() {
		if _, err := g.Run(context.Background(), tools.Call{Args: args}); err != nil {
			b.Fatal(err)
		}
	}
}
