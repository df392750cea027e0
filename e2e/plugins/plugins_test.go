package plugins

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// greet is a plugin in Claude Code's published format (ours): a command
// whose snippet runs the plugin's script, and a UserPromptSubmit hook
// that writes its CLAUDE_PLUGIN_ROOT into the project.
var greet = map[string]string{
	".claude-plugin/plugin.json": `{"name": "greet", "version": "1.0.0", "description": "Greets people"}`,
	"commands/hello.md":          "---\ndescription: Say hello\nallowed-tools: Bash(${CLAUDE_PLUGIN_ROOT}/scripts/name.sh:*)\n---\nGreet $ARGUMENTS from ${CLAUDE_PLUGIN_ROOT}.\nName: !`${CLAUDE_PLUGIN_ROOT}/scripts/name.sh`\n",
	"agents/reviewer.md":         "---\nname: reviewer\ndescription: Reviews greetings\n---\nReview.\n",
	"skills/style/SKILL.md":      "---\nname: Style Guide\ndescription: How a greeting should sound.\n---\nBe warm.\n",
	"hooks/hooks.json":           `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/scripts/x.sh"}]}]}}`,
	"scripts/x.sh":               "#!/bin/sh\ncat >/dev/null\nprintf '%s' \"$CLAUDE_PLUGIN_ROOT\" > \"$CLAUDE_PROJECT_DIR/hook-root.txt\"\n",
	"scripts/name.sh":            "#!/bin/sh\necho Ada\n",
}

// writeTree writes files under dir; .sh files are executable.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		mode := os.FileMode(0o644)
		if strings.HasSuffix(name, ".sh") {
			mode = 0o755
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
}

// person is one person's agent: their home (and so their data
// directory) kept across runs.
type person struct {
	t    *testing.T
	home string
}

func newPerson(t *testing.T) person { return person{t: t, home: t.TempDir()} }

// run runs agent with args in dir, stdin given.
func (p person) run(dir, stdin string, args ...string) e2e.Result {
	p.t.Helper()
	inv := e2e.Invocation{Dir: dir, Env: []string{"HOME=" + p.home}, Args: args}
	if stdin != "" {
		inv.Stdin = strings.NewReader(stdin)
	}
	return e2e.Run(p.t, inv)
}

// ok runs agent and fails the test unless it exits 0.
func (p person) ok(dir, stdin string, args ...string) e2e.Result {
	p.t.Helper()
	r := p.run(dir, stdin, args...)
	if r.Code != 0 {
		p.t.Fatalf("agent %v: exit %d\nstdout %s\nstderr %s", args, r.Code, r.Stdout, r.Stderr)
	}
	return r
}

// root is where the person's plugin name@local is installed.
func (p person) root(name string) string {
	return filepath.Join(p.home, ".local", "share", "agent", "plugins", "installed", "local", name)
}

// install asks before it installs, and shows what the plugin runs; the
// installed plugin's command reaches the model expanded, its snippet run
// in the sandbox and its hook with CLAUDE_PLUGIN_ROOT set; doctor and list
// show it; disabled it contributes nothing; removed it is gone.
func TestInstallAskUseDisableRemove(t *testing.T) {
	t.Parallel()
	p := newPerson(t)
	src := filepath.Join(t.TempDir(), "greet")
	writeTree(t, src, greet)
	project := e2e.ExtProject(t, map[string]string{})
	root := p.root("greet")

	declined := p.run(project, "n\n", "plugin", "install", src)
	if declined.Code != 2 || !strings.Contains(declined.Stderr, "not installed") {
		t.Fatalf("declined: exit %d, stderr %q", declined.Code, declined.Stderr)
	}
	for _, want := range []string{"plugin greet@local 1.0.0: Greets people", "commands: /greet:hello", "agents: greet:reviewer", "skills: greet:style",
		"UserPromptSubmit: " + root + "/scripts/x.sh", "Install it? [y/N]"} {
		if !strings.Contains(declined.Stdout, want) {
			t.Errorf("install showed %q, want %q in it", declined.Stdout, want)
		}
	}
	if r := p.ok(project, "", "plugin", "list"); !strings.Contains(r.Stdout, "no plugins installed") {
		t.Fatalf("after declining, list says %q", r.Stdout)
	}
	p.ok(project, "y\n", "plugin", "install", src)
	if r := p.ok(project, "", "plugin", "list"); !strings.Contains(r.Stdout, "greet@local 1.0.0: enabled") {
		t.Errorf("list says %q", r.Stdout)
	}

	srv := scripted.New(t, scripted.Text("hello"), scripted.Text("hello"))
	p.ok(project, "", e2e.AgentArgs(srv, "-p", "/greet:hello Bob")...)
	got := e2e.LastUserText(srv.Requests()[0])
	for _, want := range []string{"Greet Bob from " + root + ".", "Name: Ada"} {
		if !strings.Contains(got, want) {
			t.Errorf("the model got %q, want %q in it", got, want)
		}
	}
	if data, err := os.ReadFile(filepath.Join(project, "hook-root.txt")); err != nil || string(data) != root {
		t.Errorf("the hook's CLAUDE_PLUGIN_ROOT: %q, %v; want %s", data, err, root)
	}
	doctor := p.run(project, "", "doctor", "--model", "m", "--base-url", srv.URL())
	if !strings.Contains(doctor.Stdout, "1 installed, 1 enabled here") || !strings.Contains(doctor.Stdout, "greet@local") ||
		!strings.Contains(doctor.Stdout, "1 command, 1 agent, 1 skill, 1 hook") {
		t.Errorf("doctor says:\n%s", doctor.Stdout)
	}

	p.ok(project, "", "plugin", "disable", "greet")
	os.Remove(filepath.Join(project, "hook-root.txt"))
	p.ok(project, "", e2e.AgentArgs(srv, "-p", "/greet:hello Bob")...)
	if got := e2e.LastUserText(srv.Requests()[1]); got != "/greet:hello Bob" {
		t.Errorf("disabled, the model got %q, want the prompt as typed", got)
	}
	if _, err := os.Stat(filepath.Join(project, "hook-root.txt")); err == nil {
		t.Error("the disabled plugin's hook ran")
	}
	if r := p.ok(project, "", "plugin", "list"); !strings.Contains(r.Stdout, "greet@local 1.0.0: disabled (agent plugin disable)") {
		t.Errorf("list says %q", r.Stdout)
	}
	p.ok(project, "", "plugin", "remove", "greet")
	if _, err := os.Stat(root); err == nil {
		t.Error("the removed plugin's copy is left")
	}
	if r := p.run(project, "", "plugin", "enable", "greet"); r.Code != 2 || !strings.Contains(r.Stderr, "no installed plugin greet") {
		t.Errorf("enable after remove: exit %d, stderr %q", r.Code, r.Stderr)
	}
}

// listed is agent plugin list --json.
type listed struct {
	ID       string   `json:"id"`
	Enabled  bool     `json:"enabled"`
	Commands []string `json:"commands"`
	Hooks    []string `json:"hooks"`
	Warnings []string `json:"warnings"`
}

func (p person) list(dir string) []listed {
	p.t.Helper()
	var out []listed
	if err := json.Unmarshal([]byte(p.ok(dir, "", "plugin", "list", "--json").Stdout), &out); err != nil {
		p.t.Fatal(err)
	}
	return out
}

// A plugin installs from a local git repository (what is committed) and
// from a marketplace file; a project's settings disable one there.
func TestInstallFromGitAndMarketplace(t *testing.T) {
	t.Parallel()
	p := newPerson(t)
	work := t.TempDir()
	repo := filepath.Join(work, "greet")
	writeTree(t, repo, greet)
	for _, args := range [][]string{{"init", "--quiet"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "--quiet", "-m", "greet"}} {
		if out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	writeTree(t, repo, map[string]string{"commands/later.md": "Not committed.\n"})
	writeTree(t, filepath.Join(work, "market"), map[string]string{
		".claude-plugin/marketplace.json": `{"name": "team", "owner": {"name": "T"}, "plugins": [{"name": "wave", "source": "./plugins/wave", "description": "Waves"}]}`,
		"plugins/wave/commands/wave.md":   "Wave at $ARGUMENTS.\n",
	})
	project := e2e.ExtProject(t, map[string]string{})
	if r := p.ok(project, "", "plugin", "install", "--yes", repo); !strings.Contains(r.Stdout, "(commit ") {
		t.Errorf("install from git says %q, want the commit", r.Stdout)
	}
	r := p.ok(project, "", "plugin", "marketplace", "add", filepath.Join(work, "market", ".claude-plugin", "marketplace.json"))
	if !strings.Contains(r.Stdout, "added marketplace team (1 plugins)") {
		t.Errorf("marketplace add says %q", r.Stdout)
	}
	if r := p.ok(project, "", "plugin", "marketplace", "list", "team"); !strings.Contains(r.Stdout, "wave@team: Waves") {
		t.Errorf("marketplace list team says %q", r.Stdout)
	}
	p.ok(project, "", "plugin", "install", "-y", "wave@team")
	got := p.list(project)
	if len(got) != 2 || got[0].ID != "greet@local" || !slices.Equal(got[0].Commands, []string{"/greet:hello"}) ||
		got[1].ID != "wave@team" || !slices.Equal(got[1].Commands, []string{"/wave:wave"}) {
		t.Fatalf("list --json: %+v", got)
	}
	p.ok(project, "", "plugin", "disable", "--scope", "project", "wave@team")
	if got := p.list(project); got[1].Enabled || !got[0].Enabled {
		t.Errorf("after disabling wave in the project: %+v", got)
	}
	if got := p.list(t.TempDir()); !got[1].Enabled {
		t.Errorf("in another project wave is off too: %+v", got)
	}
}

// Every plugin of the reproduction of Anthropic's marketplace installs
// through the CLI with no warning but the documented ones, and in a run
// one of their commands and their SessionStart hooks take part.
func TestAnthropicMarketplace(t *testing.T) {
	t.Parallel()
	p := newPerson(t)
	project := e2e.ExtProject(t, map[string]string{})
	if out, err := exec.Command("git", "init", "--quiet", project).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	p.ok(project, "", "plugin", "marketplace", "add", filepath.Join(e2e.Root(t), "plugin", "testdata", "claude-code-plugins"))
	names := regexp.MustCompile(`(?m)^([a-z0-9-]+)@claude-code-plugins`).FindAllStringSubmatch(p.ok(project, "", "plugin", "marketplace", "list", "claude-code-plugins").Stdout, -1)
	if len(names) != 13 {
		t.Fatalf("the marketplace lists %d plugins, want 13", len(names))
	}
	for _, n := range names {
		p.ok(project, "", "plugin", "install", "--yes", n[1]+"@claude-code-plugins")
	}
	documented := regexp.MustCompile("^plugin security-guidance@claude-code-plugins: .* skipped: asyncRewake")
	hooks := 0
	for _, l := range p.list(project) {
		hooks += len(l.Hooks)
		for _, w := range l.Warnings {
			if !documented.MatchString(w) {
				t.Errorf("%s: an undocumented warning: %s", l.ID, w)
			}
		}
	}
	if hooks != 10 {
		t.Errorf("%d hooks load, want 10", hooks)
	}
	srv := scripted.New(t, scripted.Text("committed"))
	r := p.ok(project, "", e2e.AgentArgs(srv, "-p", "/commit-commands:commit")...)
	got := e2e.LastUserText(srv.Requests()[0])
	for _, want := range []string{"COMMIT-FIXTURE", "Current status: ?? main.go", "EXPLANATORY-MODE from ", "LEARNING-MODE from "} {
		if !strings.Contains(got, want) {
			t.Errorf("the model got %q, want %q in it (stderr %q)", got, want, r.Stderr)
		}
	}
}
