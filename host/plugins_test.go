//go:build unix

package host_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/plugin"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/fake"
)

// greetPlugin is a plugin in Claude Code's published format (ours): a
// command whose !`snippet` runs a script of the plugin, an agent, a skill,
// a UserPromptSubmit hook and a stdio MCP server (this test binary as
// serveMCP, which writes record) that find their files through
// ${CLAUDE_PLUGIN_ROOT}.
func greetPlugin(t *testing.T, record string) map[string]string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	manifest, _ := json.Marshal(map[string]any{"name": "greet", "version": "1.0.0", "mcpServers": map[string]any{"notes": map[string]any{
		"command": exe, "args": []string{"${CLAUDE_PLUGIN_ROOT}/data"}, "env": map[string]string{asMCPServer: "1", mcpRecord: record}}}})
	return map[string]string{
		".claude-plugin/plugin.json": string(manifest),
		"commands/hello.md":          "---\ndescription: Say hello\nallowed-tools: Bash(${CLAUDE_PLUGIN_ROOT}/scripts/name.sh:*)\n---\nGreet $ARGUMENTS from ${CLAUDE_PLUGIN_ROOT}.\nName: !`${CLAUDE_PLUGIN_ROOT}/scripts/name.sh`\n",
		"agents/reviewer.md":         "---\nname: reviewer\ndescription: Reviews greetings for warmth\n---\nReview.\n",
		"skills/style/SKILL.md":      "---\nname: Style Guide\ndescription: How a greeting should sound.\n---\nBe warm.\n",
		"hooks/hooks.json":           `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/scripts/x.sh", "timeout": 30}]}]}}`,
		"scripts/x.sh":               "#!/bin/sh\ncat >/dev/null\nprintf '%s' \"$CLAUDE_PLUGIN_ROOT\" > \"$CLAUDE_PROJECT_DIR/hook-root.txt\"\necho GREET-CONTEXT\n",
		"scripts/name.sh":            "#!/bin/sh\necho Ada\n",
	}
}

// installPlugin writes files as a plugin's directory and installs it in
// f's data directory, as agent plugin install --yes does; it returns the
// store and the installed copy's directory.
func installPlugin(t *testing.T, f *fixture, name string, files map[string]string) (*plugin.Store, string) {
	t.Helper()
	src := filepath.Join(t.TempDir(), name)
	for rel, content := range files {
		mode := os.FileMode(0o644)
		if strings.HasSuffix(rel, ".sh") {
			mode = 0o755
		}
		write(t, filepath.Join(src, filepath.FromSlash(rel)), content)
		if err := os.Chmod(filepath.Join(src, filepath.FromSlash(rel)), mode); err != nil {
			t.Fatal(err)
		}
	}
	store := plugin.NewStore(filepath.Dir(f.db))
	st, err := store.Stage(t.Context(), src, "/")
	if err != nil {
		t.Fatal(err)
	}
	rec, err := st.Commit()
	if err != nil {
		t.Fatal(err)
	}
	return store, store.Load(rec).Root
}

// warnings collects what a front-end is told.
type warnings struct {
	mu    sync.Mutex
	lines []string
}

func (w *warnings) warn(s string) { w.mu.Lock(); w.lines = append(w.lines, s); w.mu.Unlock() }

func (w *warnings) all() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.lines, "\n")
}

// taskDescription is the task tool's description in req ("" without it).
func taskDescription(req providers.Request) string {
	for _, d := range req.Tools {
		if d.Name == "task" {
			return d.Description
		}
	}
	return ""
}

// An enabled plugin contributes to a session: its namespaced command
// reaches the model expanded (${CLAUDE_PLUGIN_ROOT} in its body and in
// the snippet allowed-tools allows, which ran), its hook runs with
// CLAUDE_PLUGIN_ROOT set and adds its context, its skill and agent are
// offered, and its MCP server starts with its arguments expanded and
// CLAUDE_PLUGIN_ROOT in its environment.
func TestAPluginContributesToASession(t *testing.T) {
	record := filepath.Join(t.TempDir(), "server-record")
	const tool = "mcp__plugin_greet_notes__echo"
	model := fake.New(fake.ToolCalls(call("e1", tool, `{"text":"hi"}`)), fake.Text("done"))
	f := newFixture(t, model, "")
	_, root := installPlugin(t, f, "greet", greetPlugin(t, record))
	var w warnings
	s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeAuto, Warn: w.warn})
	if len(s.Warnings()) > 0 || w.all() != "" {
		t.Errorf("warnings: %q, %q", s.Warnings(), w.all())
	}
	if got := s.MCPServers(); !slices.Equal(got, []string{"plugin_greet_notes"}) {
		t.Fatalf("MCP servers %q", got)
	}
	r := runTurn(t, s, "/greet:hello Bob")
	if r.done.Reason != loop.StopAnswered {
		t.Fatalf("the turn ended %s: %v (warnings %q)", r.done.Reason, r.done.Err, w.all())
	}
	req := model.Requests()[0]
	got := lastUser(req)
	for _, want := range []string{"Greet Bob from " + root + ".", "Name: Ada", "GREET-CONTEXT"} {
		if !strings.Contains(got, want) {
			t.Errorf("the model got %q, want %q in it", got, want)
		}
	}
	if data, err := os.ReadFile(f.path("hook-root.txt")); err != nil || string(data) != root {
		t.Errorf("the hook's CLAUDE_PLUGIN_ROOT: %q, %v; want %s", data, err, root)
	}
	if !strings.Contains(req.System, "greet:style: How a greeting should sound.") {
		t.Errorf("the system prompt does not list the plugin's skill:\n%s", req.System)
	}
	if !strings.Contains(taskDescription(req), "greet:reviewer") {
		t.Errorf("the task tool does not offer the plugin's agent: %q", taskDescription(req))
	}
	if res := r.result(t, "e1"); res.IsError || !strings.Contains(res.Content, "echo: hi") {
		t.Errorf("the plugin's server answered %q", res.Content)
	}
	if data, err := os.ReadFile(record); err != nil || string(data) != root+"/data\n"+root {
		t.Errorf("the server started with %q, %v; want its argument and CLAUDE_PLUGIN_ROOT expanded to %s", data, err, root)
	}
}

// A disabled plugin contributes nothing: no command (the prompt goes as
// typed), no hook, no skill, no agent, no server. A project's
// .claude/settings.json enables it there again.
func TestADisabledPluginContributesNothing(t *testing.T) {
	record := filepath.Join(t.TempDir(), "server-record")
	model := fake.New(fake.Text("ok"), fake.Text("ok"))
	f := newFixture(t, model, "")
	store, _ := installPlugin(t, f, "greet", greetPlugin(t, record))
	if _, err := store.SetEnabled("greet", false); err != nil {
		t.Fatal(err)
	}
	s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeAuto})
	if got := s.MCPServers(); len(got) != 0 {
		t.Errorf("MCP servers %q", got)
	}
	runTurn(t, s, "/greet:hello Bob")
	req := model.Requests()[0]
	if got := lastUser(req); got != "/greet:hello Bob" {
		t.Errorf("the model got %q, want the prompt as typed", got)
	}
	if strings.Contains(req.System, "greet:") || strings.Contains(taskDescription(req), "greet:") {
		t.Error("the disabled plugin's skill or agent is offered")
	}
	if exists(f.path("hook-root.txt")) || exists(record) {
		t.Error("the disabled plugin's hook or server ran")
	}
	s.Close()

	if _, err := plugin.SetEnabledIn(f.dir, plugin.ScopeProject, "greet@local", true); err != nil {
		t.Fatal(err)
	}
	s = f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeAuto})
	if got := s.MCPServers(); !slices.Equal(got, []string{"plugin_greet_notes"}) {
		t.Errorf("enabled by the project: MCP servers %q", got)
	}
}

// A broken plugin does not wedge the session: its hook whose script is
// missing is not loaded (run, python3 would exit 2 and block every
// prompt), its PreToolUse hook that cannot start lets calls run, and each
// problem is a warning that names the plugin. Its hooks' exit 2 blocks
// only what Claude Code says: a SessionStart's is shown to the person, a
// PostToolUse's goes to the model after the result.
func TestABrokenPluginDoesNotWedgeTheSession(t *testing.T) {
	model := fake.New(fake.ToolCalls(call("b1", "bash", `{"command":"echo ran"}`)), fake.Text("done"))
	f := newFixture(t, model, "[permissions]\nallow = [\"echo\"]\n")
	installPlugin(t, f, "broken", map[string]string{
		"hooks/hooks.json": `{"hooks": {
  "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "python3 ${CLAUDE_PLUGIN_ROOT}/hooks/gone.py"}]}],
  "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/guard"}]}],
  "SessionStart": [{"hooks": [{"type": "command", "command": "echo start-complaint >&2; exit 2"}]}],
  "PostToolUse": [{"hooks": [{"type": "command", "command": "echo post-note >&2; exit 2"}]}]
}}`,
		"hooks/guard":       "#!/bin/sh\nexit 0\n", // not executable: the shell cannot start it
		"commands/bad.md":   "---\ndescription: never closed\n",
		"commands/fine.md":  "Fine.\n",
		"skills/x/SKILL.md": "---\nname: x\n", // its front matter never ends
	})
	var w warnings
	s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeAuto, Warn: w.warn})
	r := runTurn(t, s, "run it")
	if r.done.Reason != loop.StopAnswered {
		t.Fatalf("the turn ended %s: %v", r.done.Reason, r.done.Err)
	}
	if res := r.result(t, "b1"); res.IsError || !strings.Contains(res.Content, "ran") {
		t.Errorf("bash answered %q (error %v), want it run", res.Content, res.IsError)
	}
	if got := toolResults(model.Requests()[1])["b1"].Content; !strings.Contains(got, "PostToolUse hook: post-note") {
		t.Errorf("the model read %q, want the PostToolUse hook's stderr after the result", got)
	}
	loaded := strings.Join(s.Warnings(), "\n")
	for _, want := range []string{"plugin broken@local: UserPromptSubmit hook `python3 ${CLAUDE_PLUGIN_ROOT}/hooks/gone.py` skipped", "plugin broken@local: command", "bad.md", "plugin broken@local: skill"} {
		if !strings.Contains(loaded, want) {
			t.Errorf("the session's warnings lack %q:\n%s", want, loaded)
		}
	}
	if told := w.all(); !strings.Contains(told, "(plugin broken@local,") || !strings.Contains(told, "could not start") || !strings.Contains(told, "start-complaint") {
		t.Errorf("the front-end was told %q, want the guard that could not start named with its plugin, and SessionStart's stderr", told)
	}
}

// Every plugin of the reproduction of Anthropic's marketplace installs;
// in a session one of their commands reaches the model expanded, their
// SessionStart hooks' context goes with the first prompt, and nothing
// but the documented warnings is said.
func TestAnthropicPluginsRunInASession(t *testing.T) {
	model := fake.New(fake.Text("committed"))
	f := newFixture(t, model, "")
	if out, err := exec.Command("git", "init", "--quiet", f.dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	write(t, f.path("new.txt"), "new\n")
	store := plugin.NewStore(filepath.Dir(f.db))
	market, _ := filepath.Abs(filepath.Join("..", "plugin", "testdata", "claude-code-plugins"))
	_, m, err := store.AddMarketplace(t.Context(), market, "/")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range m.Plugins {
		st, err := store.Stage(t.Context(), e.Name+"@"+m.Name, "/")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	var w warnings
	s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeAuto, Warn: w.warn})
	documented := regexp.MustCompile("^plugin security-guidance@claude-code-plugins: .* skipped: asyncRewake")
	for _, l := range s.Warnings() {
		if !documented.MatchString(l) {
			t.Errorf("an undocumented warning: %s", l)
		}
	}
	r := runTurn(t, s, "/commit-commands:commit")
	if r.done.Reason != loop.StopAnswered {
		t.Fatalf("the turn ended %s: %v (told %q)", r.done.Reason, r.done.Err, w.all())
	}
	got := lastUser(model.Requests()[0])
	for _, want := range []string{"COMMIT-FIXTURE", "Current status: ?? new.txt", "EXPLANATORY-MODE from ", "LEARNING-MODE from "} {
		if !strings.Contains(got, want) {
			t.Errorf("the model got %q, want %q in it", got, want)
		}
	}
	_, python := exec.LookPath("python3")
	for _, l := range strings.Split(w.all(), "\n") {
		// The fixture's sandbox is off: the plugins' hooks run unconfined,
		// which is said (documented in the README's Hooks).
		unconfined := strings.HasSuffix(l, "plugin hook(s) run unconfined, as you: the sandbox is off")
		if l != "" && !unconfined && (python == nil || !strings.Contains(l, "could not start")) {
			t.Errorf("the front-end was told %q", l)
		}
	}
}
