//go:build linux

package sandbox

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/background"
	"github.com/agent-dev/agent/tools/shell"
)

// In plan mode, and in a subagent, the session's commands run in its
// read-only sandbox (host's readOnlyBash: a second Sandbox, ReadOnly,
// with the same network setting). A server the session's background
// process serves on 127.0.0.1 must answer them too, as it answers the
// session's other commands.
func TestAServerInTheBackgroundAnswersTheSessionsReadOnlyCommands(t *testing.T) {
	b := newBox(t, nil)
	b.needNamespaces()
	needTool(t, "python3")
	ro, err := New(Policy{Mode: ReadOnly, Dir: b.work, TempDirs: []string{b.tmp}, NetworkOf: b.sb})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	m, err := background.New(background.Config{Dir: filepath.Join(t.TempDir(), "bg"), KillGrace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	normal := shell.New(shell.Config{Dir: b.work, Build: b.sb.Build, BuildBackground: b.sb.BuildBackground, Start: b.sb.Start,
		Guard: b.sb.Guard, KillGrace: time.Second, Background: m})
	readOnly := shell.New(shell.Config{Dir: b.work, Build: ro.Build, Start: ro.Start, Guard: ro.Guard, KillGrace: time.Second})
	run := func(tool *shell.Tool, args map[string]any) tools.Result {
		raw, _ := json.Marshal(args)
		res, err := tool.Run(t.Context(), tools.Call{Args: raw})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	fetch := `for i in $(seq 200); do python3 -c 'import urllib.request as u; print(u.urlopen("http://127.0.0.1:8766/page.txt").read().decode(), end="")' 2>/dev/null && exit 0; sleep 0.05; done; exit 1`
	if res := run(normal, map[string]any{"command": "echo hello > page.txt && exec python3 -m http.server 8766 --bind 127.0.0.1", "run_in_background": true}); res.IsError {
		t.Fatalf("the server did not start: %s", res.Content)
	}
	if got := run(normal, map[string]any{"command": fetch}); !strings.HasPrefix(got.Content, "hello\n") {
		t.Fatalf("the session's own command did not reach the server: %s", got.Content)
	}
	// The server answers already: one try.
	once := `python3 -c 'import urllib.request as u; print(u.urlopen("http://127.0.0.1:8766/page.txt").read().decode(), end="")'`
	if got := run(readOnly, map[string]any{"command": once}); !strings.HasPrefix(got.Content, "hello\n") {
		t.Errorf("a read-only command of the session (plan mode, a subagent) does not reach the session's server: %s", got.Content)
	}
}
