package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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
