package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// agent doctor names the instruction files a session reads and the
// Claude Code settings it takes, and every setting it does not honour.
func TestDoctorListsInstructionsAndClaudeSettings(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"CLAUDE.md":             "Use make.",
		".claude/rules/go.md":   "---\npaths: [\"**/*.go\"]\n---\nWrap errors.",
		".claude/settings.json": `{"permissions": {"allow": ["Bash(make:*)"], "deny": ["Bash(git push:*)"]}, "outputStyle": "Explanatory", "frobnicate": true}`,
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, _ := doctor(t, writeConfig(t, ""), map[string]string{"AGENT_MODEL": "m"}, "-C", dir)
	for _, want := range []string{
		"instructions       2: CLAUDE.md, .claude/rules/go.md (paths: **/*.go)",
		"claude settings    " + filepath.Join(dir, ".claude", "settings.json"),
		"outputStyle: not honoured (no output styles)",
		"frobnicate: not a setting agent knows",
		"its allow rules, env and status line are not applied until you trust the file",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor lacks %q:\n%s", want, out)
		}
	}
}
