package host_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/providers/fake"
)

// A repository that keeps Claude Code's CLAUDE.md and path-scoped rules:
// the system prompt carries CLAUDE.md, and a rule reaches the model with
// the first tool result that touches a file it matches, once.
func TestClaudeMDAndRulesReachTheModel(t *testing.T) {
	model := fake.New(
		fake.ToolCalls(call("r1", "read_file", `{"path":"main.go"}`)),
		fake.ToolCalls(call("r2", "read_file", `{"path":"util.go"}`), call("r3", "read_file", `{"path":"README.md"}`)),
		fake.Text("done"),
	)
	f := newFixture(t, model, "")
	write(t, f.path("CLAUDE.md"), "Build with make.")
	write(t, f.path(".claude/rules/go.md"), "---\npaths:\n  - \"**/*.go\"\n---\nWrap errors with %w.")
	write(t, f.path("main.go"), "package main\n")
	write(t, f.path("util.go"), "package main\n")
	write(t, f.path("README.md"), "# readme\n")
	s := f.open(t, host.Request{}, host.FrontEnd{})
	if r := runTurn(t, s, "look"); r.done.Err != nil {
		t.Fatal(r.done.Err)
	}
	reqs := model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	if !strings.Contains(reqs[0].System, "Build with make.") || strings.Contains(reqs[0].System, "Wrap errors") {
		t.Errorf("system prompt:\n%s", reqs[0].System)
	}
	got := toolResults(reqs[2])
	if !strings.Contains(got["r1"].Content, "Wrap errors with %w.") || !strings.Contains(got["r1"].Content, filepath.ToSlash(".claude/rules/go.md")) {
		t.Errorf("the first .go file's result lacks the rule: %q", got["r1"].Content)
	}
	if strings.Contains(got["r2"].Content, "Wrap errors") || strings.Contains(got["r3"].Content, "Wrap errors") {
		t.Errorf("the rule was told again: %q / %q", got["r2"].Content, got["r3"].Content)
	}
}

// A repository's CLAUDE.md cannot import what agent keeps for itself (the
// MCP servers' OAuth tokens in its data directory, here inside the
// repository) nor Claude Code's own login (~/.claude/.credentials.json):
// neither reaches the system prompt.
func TestImportsReachNoTokens(t *testing.T) {
	model := fake.New(fake.Text("done"))
	f := newFixture(t, model, "")
	top := filepath.Dir(f.dir) // the fixture's data directory lies in it
	if err := os.Mkdir(filepath.Join(top, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(filepath.Dir(f.db), "mcp-oauth", "github-0a1b2c3d.json"), `{"access_token": "OAUTH-TOKEN"}`)
	home, _ := os.UserHomeDir()
	login := filepath.Join(home, ".claude", ".credentials.json")
	write(t, login, `{"claudeAiOauth": {"accessToken": "CLAUDE-LOGIN"}}`)
	t.Cleanup(func() { os.Remove(login) })
	write(t, f.path("CLAUDE.md"), "Build with make.\nTokens: @../data/mcp-oauth/github-0a1b2c3d.json and @~/.claude/.credentials.json")
	s := f.open(t, host.Request{}, host.FrontEnd{})
	if r := runTurn(t, s, "go"); r.done.Err != nil {
		t.Fatal(r.done.Err)
	}
	sys := model.Requests()[0].System
	if !strings.Contains(sys, "Build with make.") {
		t.Fatalf("the system prompt lacks CLAUDE.md:\n%s", sys)
	}
	for _, secret := range []string{"OAUTH-TOKEN", "CLAUDE-LOGIN"} {
		if strings.Contains(sys, secret) {
			t.Errorf("the system prompt holds %s", secret)
		}
	}
}

// A Read deny rule of the Claude Code settings holds for imports too: a
// CLAUDE.md that imports a file the rule covers does not bring it into
// the system prompt.
func TestImportsHoldReadDenyRules(t *testing.T) {
	model := fake.New(fake.Text("done"))
	f := newFixture(t, model, "")
	write(t, f.path(".claude/settings.json"), `{"permissions": {"deny": ["Read(./config/*.key)"]}}`)
	write(t, f.path("config/master.key"), "MASTER-KEY")
	write(t, f.path("CLAUDE.md"), "Build with make. Key: @config/master.key")
	s := f.open(t, host.Request{}, host.FrontEnd{})
	if r := runTurn(t, s, "go"); r.done.Err != nil {
		t.Fatal(r.done.Err)
	}
	if sys := model.Requests()[0].System; !strings.Contains(sys, "Build with make.") || strings.Contains(sys, "MASTER-KEY") {
		t.Errorf("system prompt:\n%s", sys)
	}
}
