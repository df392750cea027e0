package memory

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agent-dev/agent/sessions"
	"github.com/agent-dev/agent/tools"
)

// The tools' names.
const (
	SearchName = "memory_search"
	GetName    = "memory_get"
	WriteName  = "memory_write"
)

var (
	//go:embed memory_search.md
	searchDescription string
	//go:embed memory_get.md
	getDescription string
	//go:embed memory_write.md
	writeDescription string
)

const searchSchema = `{
  "type": "object",
  "properties": {
    "query": {"type": "string", "minLength": 1, "description": "keywords to look for"},
    "max_results": {"type": "integer", "minimum": 1, "maximum": 50, "description": "number of results; default 6"},
    "all_projects": {"type": "boolean", "description": "search every project, not only this one; default false"}
  },
  "required": ["query"],
  "additionalProperties": false
}`

const getSchema = `{
  "type": "object",
  "properties": {
    "key": {"type": "string", "minLength": 1, "description": "MEMORY.md, a date (2026-11-20), SESSION, SESSION:14 or SESSION:10-20"},
    "context": {"type": "integer", "minimum": 0, "maximum": 50, "description": "messages either side of a single message; default 2"}
  },
  "required": ["key"],
  "additionalProperties": false
}`

const writeSchema = `{
  "type": "object",
  "properties": {
    "text": {"type": "string", "minLength": 1, "description": "the note"},
    "long_term": {"type": "boolean", "description": "save to MEMORY.md (in every new session's system prompt) instead of today's note; default false"}
  },
  "required": ["text"],
  "additionalProperties": false
}`

// Tools returns memory_search, memory_get and memory_write over m. A
// search leaves out the messages of the call's own session
// (tools.Call.Session): the model has them already.
func Tools(m *Memory) []tools.Tool {
	return []tools.Tool{&searchTool{m}, &getTool{m}, &writeTool{m}}
}

type searchTool struct{ m *Memory }

type getTool struct{ m *Memory }

type writeTool struct{ m *Memory }

var (
	_ tools.Tool = (*searchTool)(nil)
	_ tools.Tool = (*getTool)(nil)
	_ tools.Tool = (*writeTool)(nil)
)

func (*searchTool) Definition() tools.Definition {
	return tools.Definition{Name: SearchName, Description: searchDescription, Schema: json.RawMessage(searchSchema),
		ReadOnly: true, Effects: tools.ReadsWorkspace}
}

func (t *searchTool) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	raw := call.Args
	var a struct {
		Query       string `json:"query"`
		MaxResults  int    `json:"max_results"`
		AllProjects bool   `json:"all_projects"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return tools.Errorf("invalid arguments: %v", err), nil
	}
	o := SearchOptions{Max: a.MaxResults, AllProjects: a.AllProjects, Exclude: call.Session}
	rs, err := t.m.Search(ctx, a.Query, o)
	if err != nil {
		if ctx.Err() != nil {
			return tools.Errorf("search cancelled"), nil
		}
		return tools.Errorf("memory_search: %v", err), nil
	}
	return tools.Result{Content: FormatResults(a.Query, rs, a.AllProjects), Meta: map[string]any{"results": len(rs)}}, nil
}

// FormatResults shows search results as memory_search and `agent memory
// search` print them: a count, then per result its rank, source, date,
// score and key, and the passage indented. allProjects adds each result's
// project.
func FormatResults(query string, rs []Result, allProjects bool) string {
	if len(rs) == 0 {
		return fmt.Sprintf("No memory or past session matches %q.", query)
	}
	var b strings.Builder
	noun := "results"
	if len(rs) == 1 {
		noun = "result"
	}
	fmt.Fprintf(&b, "%d %s for %q:\n", len(rs), noun, query)
	for i, r := range rs {
		fmt.Fprintf(&b, "\n%d. %s", i+1, r.Source)
		if r.Role != "" {
			fmt.Fprintf(&b, " (%s", r.Role)
			if r.Title != "" {
				fmt.Fprintf(&b, `, session "%s"`, r.Title)
			}
			b.WriteString(")")
		}
		if !r.Date.IsZero() {
			fmt.Fprintf(&b, " · %s", r.Date.Format("2006-01-02 15:04"))
		}
		fmt.Fprintf(&b, " · score %.2f · key %s", r.Score, r.Key)
		if allProjects && r.Project != "" {
			fmt.Fprintf(&b, " · project %s", r.Project)
		}
		b.WriteString("\n")
		for line := range strings.Lines(r.Passage) {
			b.WriteString("   " + strings.TrimRight(line, "\n") + "\n")
		}
	}
	return b.String()
}

func (*getTool) Definition() tools.Definition {
	return tools.Definition{Name: GetName, Description: getDescription, Schema: json.RawMessage(getSchema),
		ReadOnly: true, Effects: tools.ReadsWorkspace}
}

func (t *getTool) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	raw := call.Args
	var a struct {
		Key     string `json:"key"`
		Context int    `json:"context"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return tools.Errorf("invalid arguments: %v", err), nil
	}
	text, err := t.m.Get(ctx, a.Key, a.Context)
	switch {
	case errors.Is(err, sessions.ErrNotFound):
		return tools.Errorf("memory_get: %q is not MEMORY.md, a date (2026-11-20) or a known session id", a.Key), nil
	case err != nil && ctx.Err() != nil:
		return tools.Errorf("memory_get cancelled"), nil
	case err != nil:
		return tools.Errorf("memory_get: %v", err), nil
	}
	return tools.Result{Content: text}, nil
}

// Definition: memory_write changes only the agent's memory directory, never
// the workspace, but its notes reach later sessions' system prompts, so it
// is approved like a file change (asked in ask mode, allowed in auto,
// refused by a read-only sandbox): a model steered by what it read must not
// plant instructions for later sessions unseen.
func (*writeTool) Definition() tools.Definition {
	return tools.Definition{Name: WriteName, Description: writeDescription, Schema: json.RawMessage(writeSchema),
		Effects: tools.WritesWorkspace}
}

func (t *writeTool) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	raw := call.Args
	var a struct {
		Text     string `json:"text"`
		LongTerm bool   `json:"long_term"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return tools.Errorf("invalid arguments: %v", err), nil
	}
	if err := ctx.Err(); err != nil {
		return tools.Errorf("memory_write cancelled"), nil
	}
	path, err := t.m.Remember(a.Text, a.LongTerm)
	if err != nil {
		return tools.Errorf("memory_write: %v", err), nil
	}
	return tools.Result{Content: "Saved to " + filepath.Base(path) + ".", Meta: map[string]any{tools.MetaPath: path}}, nil
}
