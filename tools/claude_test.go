package tools_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agent-dev/agent/lsp"

	"github.com/agent-dev/agent/skills"
	"github.com/agent-dev/agent/subagent"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/background"
	"github.com/agent-dev/agent/tools/fs"
	"github.com/agent-dev/agent/tools/plan"
	"github.com/agent-dev/agent/tools/shell"
	"github.com/agent-dev/agent/tools/todo"
	"github.com/agent-dev/agent/tools/web"
)

// Claude Code's names give the agent's tools; the names the agent has no
// tool for, its own names and unknown ones give nothing, and MCP names
// are the same in both.
func TestFromClaude(t *testing.T) {
	for _, c := range []struct {
		claude, own string
		ok          bool
	}{
		{"Bash", "bash", true},
		{"Read", "read_file", true},
		{"Write", "write_file", true},
		{"Edit", "edit_file", true},
		{"MultiEdit", "edit_file", true},
		{"Grep", "grep", true},
		{"Glob", "list_files", true},
		{"LS", "list_files", true},
		{"Task", "task", true},
		{"TodoWrite", "todo_write", true},
		{"ExitPlanMode", "exit_plan_mode", true},
		{"WebFetch", "web_fetch", true},
		{"WebSearch", "", false},
		{"BashOutput", "bash_output", true},
		{"KillShell", "kill_shell", true},
		{"KillBash", "kill_shell", true},
		{"NotebookEdit", "", false},
		{"mcp__github__create_issue", "mcp__github__create_issue", true},
		{"bash", "", false},
		{"webfetch", "", false},
		{"Unknown", "", false},
		{"", "", false},
	} {
		own, ok := tools.FromClaude(c.claude)
		if own != c.own || ok != c.ok {
			t.Errorf("FromClaude(%q) = %q, %v; want %q, %v", c.claude, own, ok, c.own, c.ok)
		}
	}
}

// The agent's tools have Claude Code's names, the first of them the one
// a hook's input carries; a tool Claude Code lacks, and an MCP tool, keep
// their own.
func TestClaudeName(t *testing.T) {
	for _, c := range []struct {
		own   string
		first string
		all   []string
	}{
		{"bash", "Bash", []string{"Bash"}},
		{"read_file", "Read", []string{"Read"}},
		{"write_file", "Write", []string{"Write"}},
		{"edit_file", "Edit", []string{"Edit", "MultiEdit"}},
		{"grep", "Grep", []string{"Grep"}},
		{"list_files", "Glob", []string{"Glob", "LS"}},
		{"task", "Task", []string{"Task", "Agent"}},
		{"todo_write", "TodoWrite", []string{"TodoWrite"}},
		{"exit_plan_mode", "ExitPlanMode", []string{"ExitPlanMode"}},
		{"web_fetch", "WebFetch", []string{"WebFetch"}},
		{"pick_tools", "pick_tools", nil},
		{"mcp__github__create_issue", "mcp__github__create_issue", nil},
		{"", "", nil},
	} {
		if got := tools.ClaudeName(c.own); got != c.first {
			t.Errorf("ClaudeName(%q) = %q, want %q", c.own, got, c.first)
		}
		if got := tools.ClaudeNames(c.own); !slices.Equal(got, c.all) {
			t.Errorf("ClaudeNames(%q) = %q, want %q", c.own, got, c.all)
		}
	}
}

// Each own name of the table is a real tool's, and each Claude Code name
// goes there and back: FromClaude gives the tool, whose ClaudeNames
// include the name.
func TestClaudeTableNamesRealTools(t *testing.T) {
	root, err := os.OpenRoot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	real := []string{shell.New(shell.Config{}).Definition().Name, todo.New(nil).Definition().Name,
		plan.New(plan.Config{}).Definition().Name, web.New(web.Config{}).Definition().Name, subagent.Name, skills.ToolName}
	bg, err := background.New(background.Config{Dir: filepath.Join(t.TempDir(), "bg")})
	if err != nil {
		t.Fatal(err)
	}
	defer bg.Close()
	for _, tool := range append(append(fs.ToolsWith(root, fs.Options{}), background.Tools(bg)...), lsp.Tool(lsp.New(lsp.Options{}))) {
		real = append(real, tool.Definition().Name)
	}
	claude, own := tools.ClaudeTable()
	for i, name := range claude {
		if own[i] == "" {
			continue
		}
		if !slices.Contains(real, own[i]) {
			t.Errorf("%s maps to %s, which is no tool of the agent's (%v)", name, own[i], real)
		}
		if got, ok := tools.FromClaude(name); !ok || !slices.Contains(tools.ClaudeNames(got), name) {
			t.Errorf("%s does not go there and back: FromClaude = %q, %v", name, got, ok)
		}
	}
}
