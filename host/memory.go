package host

import (
	"path/filepath"
	"slices"

	"github.com/agent-dev/agent/memory"
	"github.com/agent-dev/agent/tools/web"
)

// toolGroups are the pick groups of the built-in tools: the file and
// shell tools, picked together at the first pick, and the memory tools,
// picked together when the model first wants one, so that a session that
// never looks into memory carries only their briefs; web_fetch is a group
// of its own, picked when the model first wants the web.
func (a *agent) toolGroups() [][]string {
	var core []string
	for _, n := range a.registry.Names() {
		if !slices.Contains(a.memoryTools, n) && n != web.ToolName {
			core = append(core, n)
		}
	}
	return [][]string{core, a.memoryTools, {web.ToolName}}
}

// memoryPrompt is the system prompt's MEMORY.md section; "" without one.
func (a *agent) memoryPrompt() string {
	if a.memory == nil {
		return ""
	}
	return a.memory.Prompt()
}

// Remember saves note to the memory of dir's project (MEMORY.md, in the
// data directory) and returns the file's path; without a data directory
// it is an error.
func (h *Host) Remember(dir, note string) (string, error) {
	if h.dbErr != nil {
		return "", h.dbErr
	}
	return memory.New(nil, filepath.Dir(h.db), dir).Remember(note, true)
}
