package host

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/agent-dev/agent/plugin"
	"github.com/agent-dev/agent/subagent"
	"github.com/agent-dev/agent/tools/mcp"
)

// Plugins is the store of the plugins the person installed, in the data
// directory; without one it is errNoDataDir.
func (h *Host) Plugins() (*plugin.Store, error) {
	if h.dataDir == "" {
		return nil, errNoDataDir
	}
	return plugin.NewStore(h.dataDir), nil
}

// enabledPlugins are the installed plugins enabled for a run in dir (see
// plugin.Store.Enabled), and the problems of the settings that choose
// them, one line each. Without a data directory there are none.
func (h *Host) enabledPlugins(dir string) ([]plugin.Plugin, []string) {
	if h.dataDir == "" {
		return nil, nil
	}
	home, _ := os.UserHomeDir()
	ps, notes, err := plugin.NewStore(h.dataDir).Enabled(dir, home)
	if err != nil {
		return nil, []string{"plugins: " + err.Error()}
	}
	return ps, notes
}

// addPlugins adds what the enabled plugins ps contribute to e: their
// hooks, commands and skills (a name another defines already keeps the
// first) and their warnings, with notes (the settings' problems).
func (e *extensions) addPlugins(ps []plugin.Plugin, notes []string) {
	e.warnings = append(e.warnings, notes...)
	commandNames, skillNames := map[string]bool{}, map[string]bool{}
	for _, c := range e.commands {
		commandNames[c.Name] = true
	}
	for _, s := range e.skills {
		skillNames[s.Name] = true
	}
	for _, p := range ps {
		e.warnings = append(e.warnings, p.Warnings...)
		e.hooks = append(e.hooks, p.Hooks...)
		for _, c := range p.Commands {
			if commandNames[c.Name] {
				e.warnings = append(e.warnings, fmt.Sprintf("plugin %s: command /%s skipped: another plugin defines it", p.ID(), c.Name))
				continue
			}
			commandNames[c.Name] = true
			e.commands = append(e.commands, c)
		}
		for _, s := range p.Skills {
			if skillNames[s.Name] {
				e.warnings = append(e.warnings, fmt.Sprintf("plugin %s: skill %s skipped: another plugin defines it", p.ID(), s.Name))
				continue
			}
			skillNames[s.Name] = true
			e.skills = append(e.skills, s)
		}
	}
}

// pluginAgents are the agent definitions of the enabled plugins ps, named
// PLUGIN:AGENT; one whose name another plugin took is left out.
func pluginAgents(ps []plugin.Plugin) []subagent.Agent {
	var out []subagent.Agent
	seen := map[string]bool{}
	for _, p := range ps {
		for _, a := range p.Agents {
			if !seen[a.Name] {
				seen[a.Name] = true
				out = append(out, a)
			}
		}
	}
	return out
}

// pluginServers resolves the MCP servers of the enabled plugins ps for a
// run in dir, each on its own, so that one plugin's broken definition
// costs only that server: it is left out with a line that names the
// plugin. As for a repository's server, a provider key (keyEnvs) named in
// its env or headers is never expanded: the server is skipped. taken are
// the names of the servers configured otherwise, which win.
func pluginServers(ps []plugin.Plugin, dir string, keyEnvs []string, getenv func(string) string, taken []mcp.Config) ([]mcp.Config, []string) {
	names := map[string]bool{}
	for _, c := range taken {
		names[c.Name] = true
	}
	var cfgs []mcp.Config
	var lines []string
	for _, p := range ps {
		for _, name := range slices.Sorted(maps.Keys(p.MCPServers)) {
			def := p.MCPServers[name]
			if names[name] {
				lines = append(lines, fmt.Sprintf("plugin %s: MCP server %s skipped: a server of that name is configured already", p.ID(), name))
				continue
			}
			refs := projectKeyRefs(def, keyEnvs)
			if len(refs) > 0 {
				def.Env, def.Headers = withoutRefs(def.Env, refs), withoutRefs(def.Headers, refs)
			}
			one, err := mcp.Resolve(map[string]mcp.ServerDef{name: def}, "plugin "+p.ID(), dir, keyEnvs, getenv)
			if err != nil {
				lines = append(lines, fmt.Sprintf("plugin %s: MCP server %s skipped: %v", p.ID(), name, err))
				continue
			}
			if len(refs) > 0 {
				one[0].Skipped = fmt.Sprintf("plugin %s gives it the provider key $%s, which a plugin's server never gets", p.ID(), strings.Join(refs, ", $"))
				lines = append(lines, fmt.Sprintf("MCP server %s skipped: %s", name, one[0].Skipped))
			}
			names[name] = true
			cfgs = append(cfgs, one...)
		}
	}
	return cfgs, lines
}

// PrintPlugins is agent doctor's part about the plugins: every installed
// one, enabled or not in dir and by which setting, what it contributes
// and its problems, then the settings' notes (a plugin they enable that is
// not installed), written with line (a key, a format and its arguments).
func (h *Host) PrintPlugins(line func(string, string, ...any), dir string) {
	store, err := h.Plugins()
	if err != nil {
		line("plugins", "%v", err)
		return
	}
	home, _ := os.UserHomeDir()
	l, err := store.List(dir, home)
	if err != nil {
		line("plugins", "%v", err)
		return
	}
	if len(l.Plugins) == 0 {
		line("plugins", "none installed (agent plugin install DIR|GITURL|NAME@MARKETPLACE)")
	} else {
		on := 0
		for _, p := range l.Plugins {
			if p.Enabled {
				on++
			}
		}
		line("plugins", "%d installed, %d enabled here", len(l.Plugins), on)
	}
	for _, p := range l.Plugins {
		state := "disabled"
		if p.Enabled {
			state = "enabled"
		}
		line("  "+p.ID(), "%s (%s): %s", state, p.EnabledBy, p.Counts())
		for _, w := range p.Warnings {
			line("", "%s", w)
		}
	}
	for _, n := range l.Notes {
		line("", "%s", n)
	}
}
