package fs

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/tools"
)

// tree creates files (slash path -> content; a path ending in "/" is an
// empty directory) in a new temporary directory and opens a root on it.
func tree(t *testing.T, files map[string]string) (*os.Root, string) {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return root, dir
}

// call validates args against the tool's schema and runs it.
func call(t *testing.T, tool tools.Tool, args string) tools.Result {
	t.Helper()
	reg, err := tools.NewRegistry(tool)
	if err != nil {
		t.Fatal(err)
	}
	name := tool.Definition().Name
	raw, err := reg.Validate(name, args)
	if err != nil {
		t.Fatalf("%s(%s): %v", name, args, err)
	}
	res, err := tool.Run(context.Background(), tools.Call{Args: raw})
	if err != nil {
		t.Fatalf("%s(%s) returned a Go error: %v", name, args, err)
	}
	return res
}

func lines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
}
