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

// needServer returns the path of a real language server's command, and
// skips the test when it is not installed (CI installs it: there the
// test fails instead).
func needServer(t *testing.T, command string) string {
	t.Helper()
	p, err := exec.LookPath(command)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not installed (.ci/run installs it): %v", command, err)
		}
		t.Skipf("%s is not installed: %v", command, err)
	}
	return p
}

// writeFiles writes files (path: content) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// newManager is a Manager of dir with servers, waiting at most wait.
func newManager(t *testing.T, dir string, wait time.Duration, servers ...Server) *Manager {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := New(Options{Dir: dir, Root: root, Servers: servers, Wait: wait, Env: os.Environ()})
	t.Cleanup(func() { m.Close(); root.Close() })
	return m
}

func goplsServer(t *testing.T) Server {
	for _, k := range known {
		if k.Name == "gopls" {
			k.Command = needServer(t, "gopls")
			return k
		}
	}
	t.Fatal("no gopls in known")
	return Server{}
}

func TestGoplsReportsTheErrorAnEditIntroducedInAnotherFile(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"a.go":   "package m\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n",
		"b.go":   "package m\n\nfunc use() int { return Add(1, 2) }\n",
	})
	m := newManager(t, dir, 20*time.Second, goplsServer(t))
	m.Open("a.go")
	m.Open("b.go")
	writeFiles(t, dir, map[string]string{"a.go": "package m\n\n// Add adds.\nfunc Add(a, b, c int) int { return a + b + c }\n"})
	rep := m.Change(context.Background(), []string{"a.go"})
	t.Logf("report: %+v\n%s", rep, rep.Text())
	if len(rep.New) == 0 || !strings.Contains(rep.Text(), "b.go:3:") {
		t.Fatalf("want the new error in b.go, got %+v", rep)
	}
	writeFiles(t, dir, map[string]string{"a.go": "package m\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n"})
	rep = m.Change(context.Background(), []string{"a.go"})
	if len(rep.New) != 0 {
		t.Fatalf("the fix introduced %+v", rep)
	}
	t.Logf("states: %+v", m.States())
}

func TestGoplsReportsWhatAnEditBrokeInAnotherPackage(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"a/a.go": "package a\n\n// Add adds.\nfunc Add(x, y int) int { return x + y }\n",
		"b/b.go": "package b\n\nimport \"example.com/m/a\"\n\nfunc use() int { return a.Add(1, 2) }\n",
	})
	m := newManager(t, dir, 20*time.Second, goplsServer(t))
	m.Open("a/a.go")
	m.Open("b/b.go")
	writeFiles(t, dir, map[string]string{"a/a.go": "package a\n\n// Add adds.\nfunc Add(x, y, z int) int { return x + y + z }\n"})
	rep := m.Change(context.Background(), []string{"a/a.go"})
	if len(rep.New) != 1 || rep.New[0].Path != filepath.Join("b", "b.go") || !strings.Contains(rep.New[0].Message, "not enough arguments in call to a.Add") {
		t.Fatalf("want the error in package b, got %+v", rep)
	}
}
