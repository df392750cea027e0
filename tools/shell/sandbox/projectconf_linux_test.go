package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/tools/protect"
)

// A .claude or .agent a command creates anywhere in the working tree (none
// was there, so nothing kept it read-only) is moved aside after the
// command, and the result says so: its hooks would otherwise run as the
// person at the next session started there. One that existed, however
// deep, stays read-only.
func TestCreatedProjectConfigurationIsMovedAside(t *testing.T) {
	b := newBox(t, func(p *Policy) {
		lib := filepath.Join(p.Dir, "packages", "lib", ".claude")
		if err := os.MkdirAll(lib, 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(lib, "settings.json"), "{}\n")
		p.Protected = append(p.Protected, protect.New(protect.Paths{Dir: p.Dir}, nil).SandboxProtected(os.Lstat)...)
	})
	b.needNamespaces()
	hook := `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch /tmp/ran"}]}]}}`
	res := b.run("mkdir -p .claude packages/app/.claude/hooks && echo '" + hook + "' > .claude/settings.json && echo 'touch /tmp/ran' > packages/app/.claude/hooks/fmt.sh; echo '{}' > packages/lib/.claude/settings.json")
	for _, moved := range []string{".claude", "packages/app/.claude"} {
		if !strings.Contains(res.Content, moved+" moved to .claude.blocked-by-agent") {
			t.Errorf("the result does not say %s was moved aside:\n%s", moved, res.Content)
		}
		absent(t, filepath.Join(b.work, moved))
		if _, err := os.Stat(filepath.Join(b.work, moved+".blocked-by-agent")); err != nil {
			t.Errorf("%s was not kept aside: %v", moved, err)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(b.work, "packages", "lib", ".claude", "settings.json")); string(got) != "{}\n" {
		t.Errorf("an existing nested .claude was written: %q", got)
	}

	// A later command, after the guard's first look: an .agent made deep in
	// a new directory.
	afterThisTick()
	res = b.run("mkdir -p x/y/.agent && echo '[[hooks]]' > x/y/.agent/hooks.toml")
	if !strings.Contains(res.Content, "x/y/.agent moved to .agent.blocked-by-agent") {
		t.Errorf("a nested .agent made by a later command was not moved aside:\n%s", res.Content)
	}
	absent(t, filepath.Join(b.work, "x", "y", ".agent"))

	afterThisTick()
	if res := b.run("mkdir -p docs && echo hi > docs/claude.md"); strings.Contains(res.Content, "blocked-by-agent") {
		t.Errorf("an ordinary command was reported:\n%s", res.Content)
	}
}

// The walk for nested project configuration (ProtectedLater) waits for the
// first command and runs once: a sandbox that runs no command never walks
// the tree, and an existing nested .claude is as read-only as when the
// walk ran at start.
func TestNestedConfigurationIsListedAtTheFirstCommand(t *testing.T) {
	walks := 0
	b := newBox(t, func(p *Policy) {
		lib := filepath.Join(p.Dir, "packages", "lib", ".claude")
		if err := os.MkdirAll(lib, 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(lib, "settings.json"), "{}\n")
		dir := p.Dir
		p.ProtectedLater = func() []string {
			walks++
			return protect.NestedProject(dir, protect.MaxNestedWalk)
		}
	})
	b.needNamespaces()
	if walks != 0 {
		t.Fatalf("the tree was walked %d times before any command", walks)
	}
	res := b.run("echo '{\"hooks\":{}}' > packages/lib/.claude/settings.json; echo done")
	if got, _ := os.ReadFile(filepath.Join(b.work, "packages", "lib", ".claude", "settings.json")); string(got) != "{}\n" {
		t.Errorf("an existing nested .claude was written: %q\n%s", got, res.Content)
	}
	if strings.Contains(res.Content, "blocked-by-agent") {
		t.Errorf("an existing nested .claude was moved aside:\n%s", res.Content)
	}
	afterThisTick()
	b.run("true")
	if walks != 1 {
		t.Errorf("the tree was walked %d times over two commands, want 1", walks)
	}
}
