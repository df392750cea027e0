package subagent

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// have are a parent's tools as the host lists them (task left out).
var have = []string{"list_files", "read_file", "grep", "edit_file", "write_file", "bash", "todo_write", "web_fetch", "skill", "mcp__docs__search", "mcp__docs__fetch"}

// A Claude Code definition reads as it is: its tools translated to the
// agent's names, "inherit" the session's model, the body the prompt.
func TestClaudeCodeDefinitionWorks(t *testing.T) {
	a, err := Parse("---\nname: code-reviewer\ndescription: \"Reviews code\"\ntools: Read, Grep, Glob, Bash\nmodel: inherit\n---\nYou review code.\n")
	if err != nil {
		t.Fatal(err)
	}
	if a.Name != "code-reviewer" || a.Description != "Reviews code" || a.Prompt != "You review code." || !a.InheritsModel() || len(a.Warnings) != 0 {
		t.Fatalf("parsed %+v", a)
	}
	if got, notes := a.Toolset(have); !slices.Equal(got, []string{"list_files", "read_file", "grep", "bash"}) || notes != nil {
		t.Errorf("tools = %v, notes %q", got, notes)
	}
}

// A definition's tools go through the one table of Claude Code's names;
// what has no counterpart here is noted once and the rest is kept; an MCP
// pattern takes the server's tools; Task starts nothing.
func TestToolsetTakesEveryClaudeCodeName(t *testing.T) {
	a := Agent{Tools: []string{"Read", "WebFetch", "TodoWrite", "Edit", "MultiEdit", "LS", "WebSearch", "mcp__docs__*", "Task", "Frobnicate"}}
	got, notes := a.Toolset(have)
	want := []string{"list_files", "read_file", "edit_file", "todo_write", "web_fetch", "mcp__docs__search", "mcp__docs__fetch"}
	if !slices.Equal(got, want) {
		t.Errorf("tools = %v, want %v", got, want)
	}
	joined := strings.Join(notes, "\n")
	if !strings.Contains(joined, "tools WebSearch, Frobnicate have no counterpart here") || !strings.Contains(joined, "Task not supported") {
		t.Errorf("notes %q", notes)
	}
}

// No tools field: the parent's tools; disallowedTools takes some away.
func TestToolsetWithoutToolsIsTheParents(t *testing.T) {
	got, notes := Agent{DisallowedTools: []string{"Write", "Edit", "mcp__docs__fetch"}}.Toolset(have)
	want := []string{"list_files", "read_file", "grep", "bash", "todo_write", "web_fetch", "skill", "mcp__docs__search"}
	if !slices.Equal(got, want) || notes != nil {
		t.Errorf("tools = %v, notes %q; want %v", got, notes, want)
	}
}

// Published definitions, as Claude Code reads them: from sub-folders, a
// block scalar's text, a description holding ": ", names with capitals
// and dots, every field read or named.
func TestLoadReadsPublishedDefinitions(t *testing.T) {
	agents, warnings := Load(filepath.Join("testdata", "claude", "agents"))
	byName := map[string]Agent{}
	for _, a := range agents {
		byName[a.Name] = a
	}
	if len(agents) != 3 {
		t.Fatalf("agents %+v, warnings %q", agents, warnings)
	}
	gw := byName["github-workflow"]
	if gw.Description != "Handles git and GitHub work: branches, commits and pull requests." || gw.Tools != nil || gw.Model != "sonnet" || gw.Color != "green" {
		t.Errorf("github-workflow = %+v", gw)
	}
	bd := byName["build-doctor"]
	if bd.Description != "Use when: the build fails. Examples: <example>Context: CI is red after a merge</example>" ||
		bd.PermissionMode != PermissionPlan || bd.MaxTurns != 5 {
		t.Errorf("build-doctor = %+v", bd)
	}
	tools, notes := bd.Toolset(have)
	if !slices.Equal(tools, []string{"read_file", "bash"}) || len(notes) != 2 || !strings.Contains(notes[0], "WebSearch, NotebookEdit") || !strings.Contains(notes[1], "Bash(go build:*)") {
		t.Errorf("build-doctor's tools %v, notes %q", tools, notes)
	}
	dw := byName["Docs.Writer"]
	if got, _ := dw.Toolset(have); dw.Tools == nil || got != nil || dw.Model != "Claude Sonnet 4.5" {
		t.Errorf("Docs.Writer = %+v, tools %v; want none at all", dw, got)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "agent definition build-doctor") ||
		!strings.Contains(warnings[0], "field hooks not supported") || !strings.Contains(warnings[0], "field memory not supported") {
		t.Errorf("warnings %q, want build-doctor's hooks and memory named in one line", warnings)
	}
}

// Bad definitions are skipped with a warning; the project's definition of
// a name wins over the user's.
func TestLoadSkipsBadDefinitionsAndKeepsTheFirstName(t *testing.T) {
	project, user := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(project, "a.md"), []byte("---\nname: finder\ndescription: project's\n---\nbody\n"), 0o644)
	os.MkdirAll(filepath.Join(user, "nested"), 0o755)
	os.WriteFile(filepath.Join(user, "nested", "a.md"), []byte("---\nname: finder\ndescription: user's\n---\nbody\n"), 0o644)
	os.WriteFile(filepath.Join(user, "bad.md"), []byte("no front matter\n"), 0o644)
	os.WriteFile(filepath.Join(user, "list.md"), []byte("---\nname: lister\ndescription: lists\ntools:\n  - Read\n  - list_files\nmodel: gpt-x\n---\n"), 0o644)
	agents, warnings := Load(project, filepath.Join(project, "missing"), user)
	if len(agents) != 2 || agents[0].Description != "project's" || agents[1].Name != "lister" {
		t.Fatalf("agents = %+v", agents)
	}
	if got, _ := agents[1].Toolset(have); !slices.Equal(got, []string{"list_files", "read_file"}) || agents[1].InheritsModel() {
		t.Errorf("lister = %+v", agents[1])
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "bad.md") {
		t.Errorf("warnings = %v, want one for bad.md", warnings)
	}
}

// A plugin's agents are named under its namespace.
func TestLoadDirsNamespace(t *testing.T) {
	agents, _ := LoadDirs(Dir{Path: filepath.Join("testdata", "claude", "agents", "github"), Namespace: "gh"})
	if len(agents) != 1 || agents[0].Name != "gh:github-workflow" {
		t.Errorf("agents %+v", agents)
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

// Bad values of fields it honours are named, and the session's settings
// hold.
func TestBadValuesAreNamed(t *testing.T) {
	a, err := Parse("---\nname: a\ndescription: d\nmaxTurns: many\npermissionMode: yolo\n---\n")
	if err != nil || a.MaxTurns != 0 || a.PermissionMode != "" || len(a.Warnings) != 2 {
		t.Errorf("%+v, %v", a, err)
	}
}
