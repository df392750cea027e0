package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agent-dev/agent/internal/scriptedlsp"
	"github.com/agent-dev/agent/tools"
)

// Subagents share the session's manager: one navigates while another
// edits the same file and a third runs commands (run with -race).
func TestSubagentsNavigatingAndEditingTogetherShareTheServers(t *testing.T) {
	m, dir := scriptedManager(t, map[string]string{"a.txt": "def Add\n", "b.txt": "x = Add 1 2\n"}, generous, scripted(scriptedlsp.ModeNormal))
	m.Open("a.txt")
	var wg sync.WaitGroup
	for g := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 5 {
				switch g {
				case 0:
					res, err := Tool(m).Run(context.Background(), tools.Call{Args: json.RawMessage(`{"operation":"references","path":"a.txt","line":1,"symbol":"Add"}`)})
					if err != nil || res.IsError {
						t.Errorf("references: %+v %v", res, err)
					}
				case 1:
					// As the file tools write: a new file renamed over the old.
					tmp := filepath.Join(dir, "a.tmp")
					if err := os.WriteFile(tmp, fmt.Appendf(nil, "def Add\n// edit %d\n", i), 0o644); err != nil {
						t.Error(err)
					} else if err := os.Rename(tmp, filepath.Join(dir, "a.txt")); err != nil {
						t.Error(err)
					}
					m.Change(context.Background(), []string{"a.txt"})
				case 2:
					m.Sync(context.Background())
					m.States()
					m.Counts()
				}
			}
		}()
	}
	wg.Wait()
}

// Two servers starting at once each get their own environment, even when
// the session's has room to grow (host's serverEnv is built by append).
func TestServersStartingTogetherKeepTheirOwnEnvironment(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.txt": "ok\n", "b.md": "ok\n"})
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	logs := t.TempDir()
	txt := scripted(scriptedlsp.ModeNormal, scriptedlsp.Log(filepath.Join(logs, "txt")))
	md := scripted(scriptedlsp.ModeNormal, scriptedlsp.Log(filepath.Join(logs, "md")))
	md.Name, md.Extensions = "scripted-md", []string{".md"}
	env := make([]string, 0, len(os.Environ())+64)
	env = append(env, os.Environ()...)
	m := New(Options{Dir: dir, Root: root, Servers: []Server{txt, md}, Wait: generous, Env: env})
	defer m.Close()
	var wg sync.WaitGroup
	for _, f := range []string{"a.txt", "b.md"} {
		wg.Add(1)
		go func() { defer wg.Done(); m.Open(f) }()
	}
	wg.Wait()
	writeFiles(t, dir, map[string]string{"a.txt": "ERROR: a\n", "b.md": "ERROR: b\n"})
	if rep := m.Change(context.Background(), []string{"a.txt", "b.md"}); len(rep.New) != 2 {
		t.Errorf("want an error of each server, got %+v", rep)
	}
	m.Close()
	for name, want := range map[string]string{"txt": "a.txt", "md": "b.md"} {
		data, _ := os.ReadFile(filepath.Join(logs, name))
		if got := strings.Count(string(data), "didOpen"); got != 1 {
			t.Errorf("the %s server's log (its environment names it) holds %d opens, want 1 (%s):\n%s", name, got, want, data)
		}
	}
}
