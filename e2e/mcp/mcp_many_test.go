package mcp

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// TestNinePublishedServersStart: a project's .mcp.json of nine published
// servers (issue 39: with ten seconds shared, none started) all start, each
// within its own $MCP_TIMEOUT, the banner one too (its banner skipped with
// one warning), and the first request offers every one's tools. A second
// run offers them by their known lists without waiting, and its first
// request carries the same tools.
func TestNinePublishedServersStart(t *testing.T) {
	t.Parallel()
	bin := e2e.MCPBin(t)
	dir := t.TempDir()
	mcpJSON, names := e2e.ManyServers(bin, dir)
	if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(mcpJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "agent.db")
	env := []string{fmt.Sprintf("MCP_TIMEOUT=%d", e2e.HangLimit.Milliseconds())}
	var firsts []string
	for run := 1; run <= 2; run++ {
		srv := scripted.New(t, scripted.Text("done"))
		start := time.Now()
		res := e2e.Run(t, e2e.Invocation{Dir: dir, Env: env,
			Args: e2e.AgentArgs(srv, "--db", db, "--trust-project-mcp", "--tools", "all", "-p", "hello")})
		t.Logf("run %d: nine servers, %.1f s to the answer", run, time.Since(start).Seconds())
		if res.Code != 0 || res.Stdout != "done\n" {
			t.Fatalf("run %d: exit %d, stdout %q, stderr %s", run, res.Code, res.Stdout, res.Stderr)
		}
		reqs := srv.Requests()
		if len(reqs) != 1 {
			t.Fatalf("run %d: %d requests", run, len(reqs))
		}
		for _, n := range names {
			if !strings.Contains(e2e.ToolsJSON(reqs[0]), `"mcp__`+n+`__`) {
				t.Errorf("run %d: the first request lacks the tools of %s (stderr: %s)", run, n, res.Stderr)
			}
		}
		banner := "MCP server memory printed a line that is not JSON-RPC"
		if run == 1 && strings.Count(res.Stderr, banner) != 1 {
			t.Errorf("run %d: stderr %s; want one warning of memory's banner", run, res.Stderr)
		}
		if strings.Contains(res.Stderr, "failed") {
			t.Errorf("run %d: a server failed: %s", run, res.Stderr)
		}
		firsts = append(firsts, e2e.ToolsJSON(reqs[0]))
	}
	if firsts[0] != firsts[1] {
		t.Errorf("the second run's first request offers other tools than the first's")
	}
	slices.Sort(names)
	t.Logf("servers: %s", strings.Join(names, ", "))
}
