package plugin

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// greetFiles is a plugin in Claude Code's published format (our own):
// a command, an agent and a skill in the default places and more through
// plugin.json's custom paths, a hook and an MCP server that name their
// files through ${CLAUDE_PLUGIN_ROOT}.
func greetFiles() map[string]string {
	return map[string]string{
		".claude-plugin/plugin.json": `{
  "name": "greet",
  "version": "1.2.0",
  "description": "Greets people",
  "author": {"name": "Fixture"},
  "commands": ["./extra/shout.md"],
  "agents": "./more-agents",
  "skills": ["./extra-skills/tone"],
  "mcpServers": {"notes": {"command": "${CLAUDE_PLUGIN_ROOT}/bin/notes", "args": ["--data", "${CLAUDE_PLUGIN_ROOT}/data"], "env": {"NOTES_HOME": "${CLAUDE_PLUGIN_ROOT}/data"}}}
}
`,
		"commands/hello.md":          "---\ndescription: Say hello\nallowed-tools: Bash(${CLAUDE_PLUGIN_ROOT}/scripts/name.sh:*)\n---\nGreet $ARGUMENTS from ${CLAUDE_PLUGIN_ROOT}.\nName: !`${CLAUDE_PLUGIN_ROOT}/scripts/name.sh`\n",
		"extra/shout.md":             "---\ndescription: Shout\n---\nSHOUT $ARGUMENTS\n",
		"agents/reviewer.md":         "---\nname: reviewer\ndescription: Reviews greetings\ntools: Read, Grep\n---\nCheck against ${CLAUDE_PLUGIN_ROOT}/checklist.md.\n",
		"more-agents/tester.md":      "---\nname: tester\ndescription: Tests greetings\n---\nTest them.\n",
		"skills/style/SKILL.md":      "---\nname: Style Guide\ndescription: How a greeting should sound.\n---\nBe warm.\n",
		"extra-skills/tone/SKILL.md": "---\nname: tone\ndescription: The tone of a greeting.\n---\nBe brief.\n",
		"hooks/hooks.json":           `{"description": "greet's hook", "hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/scripts/x.sh", "timeout": 10}]}]}}` + "\n",
		"scripts/x.sh":               "#!/bin/sh\ncat >/dev/null\nprintf '%s' \"$CLAUDE_PLUGIN_ROOT\" > \"$CLAUDE_PROJECT_DIR/hook-root.txt\"\necho GREET-CONTEXT\n",
		"scripts/name.sh":            "#!/bin/sh\necho Ada\n",
		".mcp.json":                  `{"mcpServers": {"files": {"command": "node", "args": ["${CLAUDE_PLUGIN_ROOT}/files.js"]}}}` + "\n",
	}
}

// writeTree writes files (slash-separated paths) under dir; .sh files
// are executable.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(name, ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
}

// gitRepo makes dir a git repository with its files committed and returns
// the commit.
func gitRepo(t *testing.T, dir string) string {
	t.Helper()
	for _, args := range [][]string{{"init", "--quiet", "-b", "main"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "--quiet", "-m", "plugin"}} {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	out, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// install stages source and commits it, failing the test on an error.
func install(t *testing.T, s *Store, source, cwd string) Record {
	t.Helper()
	st, err := s.Stage(context.Background(), source, cwd)
	if err != nil {
		t.Fatalf("Stage(%s): %v", source, err)
	}
	rec, err := st.Commit()
	if err != nil {
		t.Fatalf("Commit(%s): %v", source, err)
	}
	return rec
}

// names are the names of a plugin's commands, agents and skills, for
// comparisons.
func names(p Plugin) (cmds, agents, skills []string) {
	for _, c := range p.Commands {
		cmds = append(cmds, c.Name)
	}
	for _, a := range p.Agents {
		agents = append(agents, a.Name)
	}
	for _, s := range p.Skills {
		skills = append(skills, s.Name)
	}
	return cmds, agents, skills
}
