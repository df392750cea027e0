package subagent

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/agent-dev/agent/budget"
	"github.com/agent-dev/agent/tools"
)

// Agent is a defined agent: a Markdown file whose front matter gives its
// name, description, tools, model and spend cap (max_budget_usd, ours),
// and whose body is its system prompt.
// The format is Claude Code's (docs.claude.com, "Subagents": name,
// description, tools as a comma-separated list, model), so the files of
// .claude/agents work as they are.
type Agent struct {
	// Name is how the task tool's agent parameter names it: lowercase
	// letters, digits and hyphens.
	Name string
	// Description says when to use it; the task tool's description lists
	// it.
	Description string
	// Tools are the names of the tools it gets, as the agent's own names
	// (read_file) or Claude Code's (Read); nil gives the read-only tools.
	Tools []string
	// Model is the model it runs on; "" (or Claude Code's "inherit",
	// "sonnet", "opus", "haiku") runs it on the session's.
	Model string
	// MaxBudgetUSD caps what one run of it may spend, in US dollars
	// (max_budget_usd; 0: no cap of its own): past it the child stops and
	// its task call's result says so. The session's cap holds as well.
	MaxBudgetUSD float64
	// Isolation is IsolationWorktree when it works in a git worktree of
	// its own (isolation: worktree, as in Claude Code's front matter); ""
	// when it works in the session's directory.
	Isolation string
	// Prompt is its system prompt (the file's body).
	Prompt string
	// Path is the file it was read from.
	Path string
}

// ToolNames returns the agent's tools as the agent's own names, each once,
// Claude Code's names translated (tools.FromClaude: Read is read_file,
// WebFetch web_fetch); names of neither kind are kept as they are (an MCP
// tool, a Claude Code tool the agent lacks, or one the caller will report
// as unknown).
func (a Agent) ToolNames() []string {
	var out []string
	for _, n := range a.Tools {
		if own, ok := tools.FromClaude(n); ok {
			n = own
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// InheritsModel reports whether the agent runs on the session's model.
func (a Agent) InheritsModel() bool {
	switch strings.ToLower(a.Model) {
	case "", "inherit", "sonnet", "opus", "haiku":
		return true
	}
	return false
}

// Load reads the agent definitions (*.md) of dirs, in order; a name
// defined twice keeps its first definition, so list the project's
// directories before the user's. A directory that does not exist is
// skipped. A file that cannot be read or parsed is skipped, and its
// problem is returned among the warnings (one line each).
func Load(dirs ...string) (agents []Agent, warnings []string) {
	seen := map[string]bool{}
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				warnings = append(warnings, fmt.Sprintf("agent definitions in %s: %v", dir, err))
			}
			continue
		}
		for _, e := range entries {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") {
				continue
			}
			path := filepath.Join(dir, e.Name())
			a, err := readAgent(path)
			if err != nil {
				warnings = append(warnings, fmt.Sprintf("agent definition %s: %v", path, err))
				continue
			}
			if seen[a.Name] {
				continue
			}
			seen[a.Name] = true
			agents = append(agents, a)
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

// Parse reads a definition: front matter between two lines of "---"
// (key: value lines; tools as a comma-separated list, a [a, b] list or
// "- item" lines; max_budget_usd a number of US dollars; isolation
// "worktree" or nothing), then the body.
// Name and description are required.
func Parse(text string) (Agent, error) {
	text = strings.TrimPrefix(text, "\ufeff")
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 0, 64<<10), maxDefinition+1)
	if !sc.Scan() || strings.TrimSpace(sc.Text()) != "---" {
		return Agent{}, errors.New("no front matter (the file must start with a line of ---)")
	}
	var a Agent
	var body strings.Builder
	inFront, listKey := true, ""
	for sc.Scan() {
		line := sc.Text()
		if !inFront {
			body.WriteString(line + "\n")
			continue
		}
		if strings.TrimSpace(line) == "---" {
			inFront = false
			continue
		}
		if item, ok := strings.CutPrefix(strings.TrimSpace(line), "- "); ok && listKey == "tools" {
			a.Tools = append(a.Tools, unquote(item))
			continue
		}
		key, value, ok := strings.Cut(line, ":")
		if !ok || strings.HasPrefix(line, " ") || strings.HasPrefix(line, "#") {
			continue
		}
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		listKey = key
		switch key {
		case "name":
			a.Name = unquote(value)
		case "description":
			a.Description = unquote(value)
		case "model":
			a.Model = unquote(value)
		case "tools":
			a.Tools = splitList(value)
		case "isolation":
			switch v := unquote(value); v {
			case IsolationWorktree:
				a.Isolation = v
			case "", "none":
			default:
				return Agent{}, fmt.Errorf("isolation %q: the only isolation is %q", value, IsolationWorktree)
			}
		case "max_budget_usd":
			v, err := strconv.ParseFloat(unquote(value), 64)
			if err == nil {
				err = budget.Limits{USD: v}.Check("max_budget_usd", "")
			}
			if err != nil {
				return Agent{}, fmt.Errorf("max_budget_usd %q: want a positive number of US dollars", value)
			}
			a.MaxBudgetUSD = v
		}
	}
	if err := sc.Err(); err != nil {
		return Agent{}, err
	}
	if inFront {
		return Agent{}, errors.New("the front matter does not end (no closing line of ---)")
	}
	a.Prompt = strings.TrimSpace(body.String())
	switch {
	case a.Name == "":
		return a, errors.New("no name in the front matter")
	case !validName(a.Name):
		return a, fmt.Errorf("name %q: use lowercase letters, digits and hyphens", a.Name)
	case a.Description == "":
		return a, errors.New("no description in the front matter")
	}
	return a, nil
}

// splitList reads "a, b" or "[a, b]".
func splitList(v string) []string {
	v = strings.TrimSuffix(strings.TrimPrefix(v, "["), "]")
	var out []string
	for _, f := range strings.Split(v, ",") {
		if f = unquote(strings.TrimSpace(f)); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// unquote strips one pair of matching quotes.
func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

func validName(s string) bool {
	if len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}
