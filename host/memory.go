package host

import (
	"path/filepath"

	"github.com/agent-dev/agent/memory"
	"github.com/agent-dev/agent/tools/web"
)

// toolGroups are the pick groups of the built-in tools: the file and
// shell tools, picked together at the first pick, each service's tools
// (the memory tools), picked together when the model first wants one, so
// that a session that never looks into memory carries only their briefs;
// web_fetch is a group of its own, picked when the model first wants the
// web.
func (a *agent) toolGroups() [][]string {
	var groups [][]string
	served := map[string]bool{web.ToolName: true}
	for _, svc := range a.services {
		var names []string
		for _, t := range svc.tools {
			names = append(names, t.Definition().Name)
			served[t.Definition().Name] = true
		}
		if len(names) > 0 {
			groups = append(groups, names)
		}
	}
	var core []string
	for _, n := range a.registry.Names() {
		if !served[n] {
			core = append(core, n)
		}
	}
	return append(append([][]string{core}, groups...), []string{web.ToolName})
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
