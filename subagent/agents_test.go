package subagent

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A Claude Code definition reads as it is: its tools translated to the
// agent's names, "inherit" the session's model, the body the prompt.
func TestClaudeCodeDefinitionWorks(t *testing.T) {
	a, err := Parse("---\nname: code-reviewer\ndescription: \"Reviews code\"\ntools: Read, Grep, Glob, Bash\nmodel: inherit\n---\nYou review code.\n")
	if err != nil {
		t.Fatal(err)
	}
	if a.Name != "code-reviewer" || a.Description != "Reviews code" || a.Prompt != "You review code." || !a.InheritsModel() {
		t.Fatalf("parsed %+v", a)
	}
	if got := a.ToolNames(); !slices.Equal(got, []string{"read_file", "grep", "list_files", "bash"}) {
		t.Errorf("tools = %v", got)
	}
}

// A definition's tools go through the one table of Claude Code's names:
// WebFetch and TodoWrite are the agent's tools, Edit and MultiEdit one
// tool, and what the agent lacks (WebSearch) or names alike in both (an
// MCP tool) is kept as written.
func TestToolNamesTakeEveryClaudeCodeName(t *testing.T) {
	a := Agent{Tools: []string{"Read", "WebFetch", "TodoWrite", "Edit", "MultiEdit", "LS", "WebSearch", "mcp__docs__search"}}
	want := []string{"read_file", "web_fetch", "todo_write", "edit_file", "list_files", "WebSearch", "mcp__docs__search"}
	if got := a.ToolNames(); !slices.Equal(got, want) {
		t.Errorf("tools = %v, want %v", got, want)
	}
}

// Bad definitions are skipped with a warning; the project's definition of
// a name wins over the user's.
func TestLoadSkipsBadDefinitionsAndKeepsTheFirstName(t *testing.T) {
	project, user := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(project, "a.md"), []byte("---\nname: finder\ndescription: project's\n---\nbody\n"), 0o644)
	os.WriteFile(filepath.Join(user, "a.md"), []byte("---\nname: finder\ndescription: user's\n---\nbody\n"), 0o644)
	os.WriteFile(filepath.Join(user, "bad.md"), []byte("no front matter\n"), 0o644)
	os.WriteFile(filepath.Join(user, "list.md"), []byte("---\nname: lister\ndescription: lists\ntools:\n  - Read\n  - list_files\nmodel: gpt-x\n---\n"), 0o644)
	agents, warnings := Load(project, filepath.Join(project, "missing"), user)
	if len(agents) != 2 || agents[0].Description != "project's" || agents[1].Name != "lister" {
		t.Fatalf("agents = %+v", agents)
	}
	if !slices.Equal(agents[1].ToolNames(), []string{"read_file", "list_files"}) || agents[1].InheritsModel() {
		t.Errorf("lister = %+v", agents[1])
	}
	if len(warnings) != 1 {
		t.Errorf("warnings = %v, want one for bad.md", warnings)
	}
}

// isolation: worktree (Claude Code's front matter) is read; any other
// isolation is refused.
func TestIsolationInAgentDefinitions(t *testing.T) {
	for text, want := range map[string]string{"worktree": "worktree", "\"worktree\"": "worktree", "none": ""} {
		a, err := Parse("---\nname: a\ndescription: d\nisolation: " + text + "\n---\n")
		if err != nil || a.Isolation != want {
			t.Errorf("isolation: %s: %q, %v; want %q", text, a.Isolation, err, want)
		}
	}
	if _, err := Parse("---\nname: a\ndescription: d\nisolation: container\n---\n"); err == nil || !strings.Contains(err.Error(), `"worktree"`) {
		t.Errorf("isolation: container: %v, want an error naming worktree", err)
	}
}
