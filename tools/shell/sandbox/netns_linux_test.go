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

// With the network off, the session's commands share one network
// namespace: a server a background process starts on 127.0.0.1 answers a
// later command, while the host's loopback stays out of reach
// (TestNetworkOffRefusesTCPToTheHost).
func TestAServerABackgroundProcessStartsIsReachableFromTheNextCommand(t *testing.T) {
	b := newBox(t, nil)
	b.needNamespaces()
	needTool(t, "python3")
	if st := b.sb.Status(); st.NetworkBy != "a network namespace shared by the session's commands; unix sockets denied by seccomp" &&
		st.NetworkBy != "a network namespace shared by the session's commands" {
		t.Fatalf("the commands do not share a network namespace: %s %v", st.NetworkBy, st.Warnings)
	}
	m, err := background.New(background.Config{Dir: filepath.Join(t.TempDir(), "bg"), KillGrace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	tool := shell.New(shell.Config{Dir: b.work, Build: b.sb.Build, BuildBackground: b.sb.BuildBackground, Start: b.sb.Start,
		Guard: b.sb.Guard, KillGrace: time.Second, Background: m})
	run := func(args map[string]any) tools.Result {
		raw, _ := json.Marshal(args)
		res, err := tool.Run(t.Context(), tools.Call{Args: raw})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	started := run(map[string]any{"command": "echo hello > page.txt && exec python3 -m http.server 8765 --bind 127.0.0.1", "run_in_background": true})
	if started.IsError || !strings.Contains(started.Content, "bash_1") {
		t.Fatalf("the server did not start: %s", started.Content)
	}
	// The client waits for the server to listen: a readiness loop of the
	// command under test, bounded, that ends as soon as it connects.
	got := run(map[string]any{"command": `for i in $(seq 400); do python3 -c 'import urllib.request as u; print(u.urlopen("http://127.0.0.1:8765/page.txt").read().decode(), end="")' 2>/dev/null && exit 0; sleep 0.05; done; exit 1`})
	if !strings.HasPrefix(got.Content, "hello\n") {
		t.Errorf("the later command did not reach the server: %s", got.Content)
	}
	if st, _ := m.Stop(t.Context(), "bash_1"); st.Running {
		t.Errorf("the server still runs after Stop")
	}
}
