package tui

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/tools"
)

// Claude Code's bash mode: "!ls" runs ls through Config.Shell, shown as a
// block with its output; no turn starts; /exit quits.
func TestBangRunsACommandAndExitQuits(t *testing.T) {
	srv := fake.New(fake.Text("unused"))
	cfg := config(t, srv, t.TempDir(), nil)
	var mu sync.Mutex
	var ran []string
	cfg.Shell = func(_ context.Context, command string) (tools.Result, error) {
		mu.Lock()
		ran = append(ran, command)
		mu.Unlock()
		return tools.Result{Content: "README.md\nmain.go"}, nil
	}
	d := newDriver(t, cfg)
	d.typeAndSend("!ls -1")
	d.untilShows("main.go")
	if s := d.screen(); !strings.Contains(s, "ls -1") {
		t.Errorf("the command is not shown:\n%s", s)
	}
	mu.Lock()
	if len(ran) != 1 || ran[0] != "ls -1" {
		t.Errorf("ran %q, want the command without its !", ran)
	}
	mu.Unlock()
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests: a ! command must not start a turn", n)
	}
	d.typeAndSend("/exit")
	d.until("quit", func(string) bool { return d.quit })
}
