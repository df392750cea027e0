package lsp

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestGoplsSeesAFileACommandRenamed(t *testing.T) {
	t.Setenv("PATH", filepath.Dir(needServer(t, "gopls"))+string(os.PathListSeparator)+os.Getenv("PATH"))
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"go.mod":  "module example.com/m\n\ngo 1.21\n",
		"a.go":    "package m\n\nfunc Add(a, b int) int { return a + b }\n",
		"main.go": "package m\n\nvar X = Add(1, 2)\n",
	})
	m := newManager(t, dir, 10*time.Second, goplsServer(t))
	m.Open("a.go")
	m.Open("main.go")
	if rep := m.Change(context.Background(), []string{"main.go"}); !rep.Empty() {
		t.Fatalf("before: %+v", rep)
	}
	if err := os.Rename(filepath.Join(dir, "a.go"), filepath.Join(dir, "b.go")); err != nil { // bash: git mv a.go b.go
		t.Fatal(err)
	}
	if rep := m.Sync(context.Background()); len(rep.New) > 0 {
		t.Errorf("a rename breaks nothing, the report says:\n%s", rep.Text())
	}
	// The next edit of main.go is checked against the package as it is.
	writeFiles(t, dir, map[string]string{"main.go": "package m\n\n// X is three.\nvar X = Add(1, 2)\n"})
	if rep := m.Change(context.Background(), []string{"main.go"}); len(rep.New) > 0 {
		t.Errorf("a comment breaks nothing, the report says:\n%s", rep.Text())
	}
	if cur := m.current(""); cur != "no errors or warnings" {
		t.Errorf("the diagnostics operation says:\n%s", cur)
	}
}
