package cmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/tools/mcp"
)

func TestProjectServersAndTrust(t *testing.T) {
	dir := t.TempDir()
	json := `{"mcpServers": {"a": {"command": "srv", "args": ["-x"]}, "b": {"type": "http", "url": "http://127.0.0.1:1/mcp", "headers": {"X": "${TOKEN}"}}, "c": {"type": "sse", "url": "http://127.0.0.1:1/sse"}}}`
	if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(json), 0o644); err != nil {
		t.Fatal(err)
	}
	servers, err := projectServers(dir)
	if err != nil || servers["a"].Command != "srv" || servers["b"].URL == "" {
		t.Fatalf("projectServers: %+v %v", servers, err)
	}
	cfgs, err := mcpServers(servers, "test", dir, "", func(k string) string { return map[string]string{"TOKEN": "t0k"}[k] })
	if err != nil || len(cfgs) != 3 || cfgs[1].Headers["X"] != "t0k" || cfgs[1].SSE || !cfgs[2].SSE {
		t.Fatalf("mcpServers: %+v %v", cfgs, err)
	}

	store := &trustStore{path: filepath.Join(t.TempDir(), "trust.json")}
	asked := 0
	ask := func(context.Context, providers.ToolCall, string) (bool, bool) {
		asked++
		return true, true
	}
	gate := askTrust(store, dir, mcp.Config{Name: "a", Command: "srv"}, ask)
	for range 2 {
		if ok, why := gate(context.Background()); !ok {
			t.Fatalf("gate refused: %s", why)
		}
	}
	if asked != 1 {
		t.Errorf("asked %d times, want once (the answer is remembered)", asked)
	}
	if got := skipProject(cfgs[:2], map[string]bool{"b": true}); len(got) != 1 || cfgs[1].Skipped == "" || cfgs[0].Skipped != "" {
		t.Errorf("skipProject: %v %+v", got, cfgs)
	}
}

// TestTrustDismissedIsAskedAgain: a dismissed question (Esc) skips the
// server this time and is not remembered; a refusal is.
func TestTrustDismissedIsAskedAgain(t *testing.T) {
	store := &trustStore{path: filepath.Join(t.TempDir(), "trust.json")}
	dir := t.TempDir()
	answers := [][2]bool{{false, false}, {false, true}} // dismissed, then refused
	asked := 0
	ask := func(context.Context, providers.ToolCall, string) (bool, bool) {
		a := answers[asked]
		asked++
		return a[0], a[1]
	}
	gate := askTrust(store, dir, mcp.Config{Name: "p", Command: "srv"}, ask)
	for i, want := range []string{"dismissed", "refused by the person", "refused earlier"} {
		ok, why := gate(context.Background())
		if ok || !strings.Contains(why, want) {
			t.Errorf("start %d: %v %q, want a skip saying %q", i+1, ok, why, want)
		}
	}
	if asked != 2 {
		t.Errorf("asked %d times, want 2 (the dismissal is not remembered, the refusal is)", asked)
	}
}
