package subagent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/agent-dev/agent/budget"
	"github.com/agent-dev/agent/commands"
)

// Agent is a defined agent: a Markdown file whose front matter says what
// it is and may do, and whose body is its system prompt. The format is
// Claude Code's (code.claude.com, "Subagents"), read as YAML
// (commands.Fields), so the files of .claude/agents work as they are; a
// field this agent cannot honour is named among Warnings.
type Agent struct {
	// Name is how the task tool's agent parameter names it, as written
	// (capitals and dots too), after a directory's namespace
	// ("plugin:name").
	Name string
	// Description says when to use it; the task tool's description lists
	// it.
	Description string
	// Tools are the front matter's tools as written (Claude Code's names,
	// the agent's own, mcp__SERVER__TOOL, Bash(git:*)); nil when the
	// field is missing, which gives the parent's tools but task (see
	// Toolset).
	Tools []string
	// DisallowedTools are removed from the tools (disallowedTools).
	DisallowedTools []string
	// Model is the model it runs on as written: "" or "inherit" for the
	// session's, an alias (sonnet, opus, haiku) or a model's id or name,
	// which the host resolves for its provider.
	Model string
	// PermissionMode is Claude Code's permissionMode: PermissionDefault
	// (""), PermissionPlan, PermissionAcceptEdits,
	// PermissionBypass or PermissionDontAsk. It never widens what the
	// session allows (see the README).
	PermissionMode string
	// MaxTurns caps the child's steps (model requests) when above 0.
	MaxTurns int
	// Skills are the names of the skills whose instructions it starts
	// with, and the only ones its skill tool offers.
	Skills []string
	// Color is how Claude Code colours it; cosmetic, kept but unused.
	Color string
	// MaxBudgetUSD caps what one run of it may spend, in US dollars
	// (max_budget_usd, ours; 0: no cap of its own): past it the child
	// stops and its task call's result says so. The session's cap holds
	// as well.
	MaxBudgetUSD float64
	// Isolation is IsolationWorktree when it works in a git worktree of
	// its own (isolation: worktree, as in Claude Code's front matter); ""
	// when it works in the session's directory.
	Isolation string
	// Prompt is its system prompt (the file's body).
	Prompt string
	// Path is the file it was read from.
	Path string
	// Warnings name, one phrase each, what of the definition this agent
	// does not honour (a field, a tool with no counterpart).
	Warnings []string
}

// Claude Code's permission modes, as permissionMode names them.
const (
	PermissionDefault     = "default"
	PermissionPlan        = "plan"
	PermissionAcceptEdits = "acceptEdits"
	PermissionBypass      = "bypassPermissions"
	PermissionDontAsk     = "dontAsk"
)

// InheritsModel reports whether the agent runs on the session's model
// ("" or "inherit").
func (a Agent) InheritsModel() bool {
	m := strings.ToLower(strings.TrimSpace(a.Model))
	return m == "" || m == "inherit"
}

// Dir is a directory of agent definitions; Namespace, when not "", starts
// the names of its agents ("plugin:reviewer").
type Dir struct {
	Path      string
	Namespace string
}

// Load reads the agent definitions (*.md, in sub-folders too) of dirs, in
// order; see LoadDirs.
func Load(dirs ...string) (agents []Agent, warnings []string) {
	ds := make([]Dir, len(dirs))
	for i, d := range dirs {
		ds[i] = Dir{Path: d}
	}
	return LoadDirs(ds...)
}

// LoadDirs reads the agent definitions of dirs, in order: every *.md file
// of each, its sub-folders' included, as Claude Code reads them. A name
// defined twice keeps its first definition, so list the project's
// directories before the user's. A directory that does not exist is
// skipped. A file that cannot be read or parsed is skipped, and its
// problem is returned among the warnings (one line each); so is what an
// agent's definition asks that this agent cannot honour (its Warnings,
// one line per agent).
func LoadDirs(dirs ...Dir) (agents []Agent, warnings []string) {
	seen := map[string]bool{}
	for _, d := range dirs {
		err := filepath.WalkDir(d.Path, func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				if !errors.Is(err, fs.ErrNotExist) {
					warnings = append(warnings, fmt.Sprintf("agent definitions in %s: %v", path, err))
				}
				return nil
			}
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") {
				return nil
			}
			a, err := readAgent(path)
			if err != nil {
				warnings = append(warnings, fmt.Sprintf("agent definition %s: %v", path, err))
				return nil
			}
			if d.Namespace != "" {
				a.Name = d.Namespace + ":" + a.Name
			}
			if seen[a.Name] {
				return nil
			}
			seen[a.Name] = true
			if len(a.Warnings) > 0 {
				warnings = append(warnings, fmt.Sprintf("agent definition %s (%s): %s", a.Name, path, strings.Join(a.Warnings, "; ")))
			}
			agents = append(agents, a)
			return nil
		})
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("agent definitions in %s: %v", d.Path, err))
		}
	}
	return agents, warnings
}

// maxDefinition caps an agent definition's size (64 KiB).
const maxDefinition = 64 << 10

// readAgent reads one definition file.
func readAgent(path string) (Agent, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return Agent{}, err
	}
	if !fi.Mode().IsRegular() {
		return Agent{}, errors.New("not a regular file")
	}
	if fi.Size() > maxDefinition {
		return Agent{}, fmt.Errorf("larger than %d KiB", maxDefinition>>10)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Agent{}, err
	}
	a, err := Parse(string(data))
	a.Path = path
	return a, err
}

// Parse reads a definition: YAML front matter between two lines of "---"
// (Claude Code's fields: name, description, tools and disallowedTools as
// a list or a comma-separated string, model, permissionMode, maxTurns,
// skills, color, isolation "worktree"; and ours, max_budget_usd, a
// number of US dollars), then the body, its system prompt. Name and
// description are required; a bad isolation or max_budget_usd is an
// error; every other field it cannot honour, and a bad value of one it
// can, is named in the agent's Warnings.
func Parse(text string) (Agent, error) {
	raw, body, err := commands.FrontMatter(text)
	if err != nil {
		return Agent{}, err
	}
	if raw == "" && !strings.HasPrefix(strings.TrimPrefix(text, "\ufeff"), "---") {
		return Agent{}, errors.New("no front matter (the file must start with a line of ---)")
	}
	f, err := commands.Fields(raw)
	if err != nil {
		return Agent{}, err
	}
	a := Agent{Name: strings.TrimSpace(commands.String(f, "name")), Description: commands.String(f, "description"),
		Model: commands.String(f, "model"), Color: commands.String(f, "color"), Skills: commands.List(f, "skills"),
		Prompt: strings.TrimSpace(body)}
	if _, ok := commands.Get(f, "tools"); ok {
		a.Tools = commands.ToolList(f, "tools")
		if a.Tools == nil {
			a.Tools = []string{} // tools: [] is no tools at all
		}
	}
	a.DisallowedTools = commands.ToolList(f, "disallowedTools")
	if err := a.readLimits(f); err != nil {
		return a, err
	}
	a.readPermissionMode(f)
	for k := range f {
		if w := unsupported(k); w != "" {
			a.Warnings = append(a.Warnings, w)
		}
	}
	slices.Sort(a.Warnings)
	switch {
	case a.Name == "":
		return a, errors.New("no name in the front matter")
	case strings.ContainsAny(a.Name, "\n\r\t"):
		return a, fmt.Errorf("name %q: a name is one line", a.Name)
	case a.Description == "":
		return a, errors.New("no description in the front matter")
	}
	return a, nil
}

// readLimits reads isolation, max_budget_usd and maxTurns.
func (a *Agent) readLimits(f map[string]any) error {
	switch v := commands.String(f, "isolation"); v {
	case IsolationWorktree:
		a.Isolation = v
	case "", "none":
	default:
		return fmt.Errorf("isolation %q: the only isolation is %q", v, IsolationWorktree)
	}
	if v := commands.String(f, "max_budget_usd"); v != "" {
		usd, err := strconv.ParseFloat(v, 64)
		if err == nil {
			err = budget.Limits{USD: usd}.Check("max_budget_usd", "")
		}
		if err != nil {
			return fmt.Errorf("max_budget_usd %q: want a positive number of US dollars", v)
		}
		a.MaxBudgetUSD = usd
	}
	n, set, err := commands.Int(f, "maxTurns")
	switch {
	case err != nil:
		a.Warnings = append(a.Warnings, err.Error()+": the session's step limit holds")
	case set && n < 1:
		a.Warnings = append(a.Warnings, fmt.Sprintf("maxTurns: %d is not a number of turns: the session's step limit holds", n))
	case set:
		a.MaxTurns = n
	}
	return nil
}

// readPermissionMode reads permissionMode; an unknown one is a warning.
func (a *Agent) readPermissionMode(f map[string]any) {
	v := commands.String(f, "permissionMode")
	for _, m := range []string{PermissionDefault, PermissionPlan, PermissionAcceptEdits, PermissionBypass, PermissionDontAsk} {
		if strings.EqualFold(v, m) {
			a.PermissionMode = m
			return
		}
	}
	if v != "" {
		a.Warnings = append(a.Warnings, fmt.Sprintf("permissionMode %q is none of Claude Code's (default, plan, acceptEdits, bypassPermissions, dontAsk): the session's mode holds", v))
	}
}

// read are the fields Parse reads; unsupported names the others.
var read = []string{"name", "description", "tools", "disallowedTools", "model", "permissionMode", "maxTurns",
	"skills", "color", "isolation", "max_budget_usd"}

// unsupported says what becomes of field k, which this agent does not
// honour; "" for a field it reads.
func unsupported(k string) string {
	if slices.ContainsFunc(read, func(r string) bool { return commands.SameField(r, k) }) {
		return ""
	}
	why := map[string]string{
		"hooks":         "the session's hooks run for its calls (PreToolUse, PostToolUse, SubagentStop), not the definition's",
		"mcpServers":    "it gets the session's MCP servers' tools (name them in tools)",
		"memory":        "it has no memory scope of its own (the session's memory tools, when its tools include them)",
		"background":    "task calls wait for their subagent",
		"effort":        "it runs at the session's effort",
		"initialPrompt": "the task call's prompt is its first turn",
	}
	for name, w := range why {
		if commands.SameField(name, k) {
			return fmt.Sprintf("field %s not supported: %s", k, w)
		}
	}
	return fmt.Sprintf("field %s not supported", k)
}
