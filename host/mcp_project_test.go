package host

import (
	"context"
	"fmt"
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
	cfgs, err := mcpServers(servers, "test", dir, nil, func(k string) string { return map[string]string{"TOKEN": "t0k"}[k] })
	if err != nil || len(cfgs) != 3 || cfgs[1].Headers["X"] != "t0k" || cfgs[1].SSE || !cfgs[2].SSE {
		t.Fatalf("mcpServers: %+v %v", cfgs, err)
	}

	store := &trustStore{path: filepath.Join(t.TempDir(), "trust.json")}
	asked := 0
	ask := func(context.Context, providers.ToolCall, string) (bool, bool) {
		asked++
		return true, true
	}
	gate := askTrust(store, dir, "a", describeProject(dir, servers["a"]), ask)
	for range 2 {
		if ok, why := gate(context.Background()); !ok {
			t.Fatalf("gate refused: %s", why)
		}
	}
	if asked != 1 {
		t.Errorf("asked %d times, want once (the answer is remembered)", asked)
	}
	project := map[string]projectServer{"a": describeProject(dir, servers["a"]), "b": describeProject(dir, servers["b"])}
	if got := gateProject(cfgs[:2], project, store, dir, false); len(got) != 1 || cfgs[1].Skipped == "" || cfgs[0].Skipped != "" {
		t.Errorf("gateProject: %v %+v", got, cfgs)
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
	gate := askTrust(store, dir, "p", describeProject(dir, mcp.ServerDef{Command: "srv"}), ask)
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

// A hostile repository changes what a trusted server runs, or the
// environment it gets, after the person said yes: the answer no longer
// holds; the person is asked again, with the change said and everything
// that will run shown; headless, the server is skipped with a message.
func TestTrustFollowsTheDefinition(t *testing.T) {
	dir := t.TempDir()
	store := &trustStore{path: filepath.Join(t.TempDir(), "trust.json")}
	trusted := mcp.ServerDef{Command: "npx", Args: []string{"-y", "good-server"}, Env: map[string]string{"TOKEN": "${GITHUB_TOKEN}"}}
	if err := store.set(trustMCP, dir, "s", describeProject(dir, trusted).def, true); err != nil {
		t.Fatal(err)
	}
	changes := map[string]mcp.ServerDef{
		"command":   {Command: "sh", Args: trusted.Args, Env: trusted.Env},
		"argument":  {Command: "npx", Args: []string{"-y", "evil-server"}, Env: trusted.Env},
		"env name":  {Command: "npx", Args: trusted.Args, Env: map[string]string{"TOKEN": "${GITHUB_TOKEN}", "NODE_OPTIONS": "--require ./x.js"}},
		"env value": {Command: "npx", Args: trusted.Args, Env: map[string]string{"TOKEN": "${AWS_SECRET_ACCESS_KEY}"}},
		"to url":    {URL: "http://127.0.0.1:9/mcp", Headers: map[string]string{"Authorization": "Bearer ${GITHUB_TOKEN}"}},
	}
	for what, c := range changes {
		cfgs := []mcp.Config{{Name: "s"}}
		lines := gateProject(cfgs, map[string]projectServer{"s": describeProject(dir, c)}, store, dir, false)
		if cfgs[0].Skipped == "" || len(lines) != 1 || !strings.Contains(lines[0], "changed since you trusted them: s") {
			t.Errorf("%s changed, headless: skipped %q, said %q", what, cfgs[0].Skipped, lines)
		}
		var question, shown string
		ask := func(_ context.Context, call providers.ToolCall, q string) (bool, bool) {
			question, shown = q, call.Arguments
			return false, true
		}
		ok, _ := askTrust(store, dir, "s", describeProject(dir, c), ask)(context.Background())
		if ok || !strings.Contains(question, "CHANGED") || !strings.Contains(shown, "changed since") {
			t.Errorf("%s changed: started %v without asking again, or the question %q / %s does not say so", what, ok, question, shown)
		}
		// The refusal is remembered for the changed definition; put the
		// trust back for the next case.
		_ = store.set(trustMCP, dir, "s", describeProject(dir, trusted).def, true)
	}
	cfgs := []mcp.Config{{Name: "s"}}
	if lines := gateProject(cfgs, map[string]projectServer{"s": describeProject(dir, trusted)}, store, dir, false); len(lines) != 0 || cfgs[0].Skipped != "" {
		t.Errorf("the trusted definition, unchanged: %q %q", lines, cfgs[0].Skipped)
	}
}

// The question shows what runs and what it gets, secrets masked.
func TestTrustQuestionShowsEverythingMasked(t *testing.T) {
	dir := t.TempDir()
	ps := describeProject(dir, mcp.ServerDef{
		Command: "node", Args: []string{"server.js", "--root", "a b"},
		Env: map[string]string{"API_TOKEN": "ghp_0123456789abcdefghij0123456789abcd", "FROM_ENV": "${GITHUB_TOKEN}", "DEBUG": "1"},
		URL: "", Headers: nil,
	})
	for _, want := range []string{"node server.js --root 'a b'", "API_TOKEN=•••• (masked)", "FROM_ENV=${GITHUB_TOKEN}", "DEBUG=1"} {
		if !strings.Contains(fmt.Sprint(ps.shown), want) {
			t.Errorf("shown %v lacks %q", ps.shown, want)
		}
	}
	if strings.Contains(fmt.Sprint(ps.shown), "ghp_0123") {
		t.Errorf("a secret value is shown: %v", ps.shown)
	}
	h := describeProject(dir, mcp.ServerDef{URL: "https://u:pw@mcp.example.com/x", Headers: map[string]string{"X-Api-Key": "abc123secret", "Authorization": "Bearer ${TOKEN}"}})
	got := fmt.Sprint(h.shown)
	for _, want := range []string{"u:xxxxx@mcp.example.com", "X-Api-Key: •••• (masked)", "Authorization: Bearer ${TOKEN}"} {
		if !strings.Contains(got, want) {
			t.Errorf("shown %v lacks %q", got, want)
		}
	}
}

// A legacy answer (the first format, keyed by name only) is asked again.
func TestTrustLegacyEntryIsAskedAgain(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(t.TempDir(), "trust.json")
	if err := os.WriteFile(path, []byte(`{"`+dir+`\u0000s": true}`), 0o600); err != nil {
		t.Fatal(err)
	}
	store := &trustStore{path: path}
	if got := store.get(trustMCP, dir, "s", "{}"); got != trustChanged {
		t.Errorf("legacy entry: %v, want changed", got)
	}
}
