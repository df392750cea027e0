// Package plugin installs and loads Claude Code plugins (code.claude.com,
// "Plugins", "Plugins reference", "Plugin marketplaces"): a directory with
// an optional .claude-plugin/plugin.json and its components — commands/
// (slash commands, named /PLUGIN:COMMAND), agents/ (subagents,
// PLUGIN:AGENT), skills/ (PLUGIN:SKILL), hooks/hooks.json and .mcp.json,
// or the places plugin.json names — whose hooks and MCP servers get
// ${CLAUDE_PLUGIN_ROOT}, the plugin's directory, in their environment and
// in their command lines.
//
// A Store keeps the installed copies and a registry in the agent's data
// directory (DATA/plugins); installing stages the plugin from a local
// directory, a git repository (cloned through gitcmd) or a marketplace
// entry, shows what it contains, and commits it once the person agreed:
// installing is trusting the plugin as a whole. Enabled reads, for a
// working directory, which installed plugins are on: the registry's
// choice, then the enabledPlugins maps of Claude Code's settings files
// (~/.claude/settings.json, .claude/settings.json,
// .claude/settings.local.json). A plugin's problems are warnings that name
// it; a broken plugin contributes what loads and nothing else.
package plugin

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/agent-dev/agent/lsp"

	"github.com/agent-dev/agent/commands"
	"github.com/agent-dev/agent/hooks"
	"github.com/agent-dev/agent/skills"
	"github.com/agent-dev/agent/subagent"
	"github.com/agent-dev/agent/tools/mcp"
)

// RootVar is the variable that holds a plugin's directory (Claude Code's
// name), set in its hooks' and MCP servers' environment and expanded as
// ${CLAUDE_PLUGIN_ROOT} in their command lines, its commands' bodies and
// allowed-tools and its agents' prompts.
const RootVar = "CLAUDE_PLUGIN_ROOT"

// rootRef is RootVar as files write it.
const rootRef = "${" + RootVar + "}"

// Plugin is an installed plugin as loaded: what it contributes, named as
// a session sees it.
type Plugin struct {
	// Name is the plugin's name (its marketplace entry's, its manifest's
	// or its directory's), Marketplace the marketplace it came from
	// (LocalMarketplace for a directory or repository installed by
	// itself).
	Name, Marketplace string
	Version           string
	Description       string
	// Root is the installed copy's directory, absolute.
	Root string
	// Enabled says whether the plugin runs in the working directory it
	// was listed for; EnabledBy says which setting decided (Source).
	Enabled   bool
	EnabledBy string
	// Commands are named PLUGIN:COMMAND; Agents and Skills PLUGIN:NAME.
	Commands []commands.Command
	Agents   []subagent.Agent
	Skills   []skills.Skill
	// Hooks carry Plugin and Env (CLAUDE_PLUGIN_ROOT).
	Hooks []hooks.Hook
	// MCPServers are keyed by the name agent gives them,
	// plugin_PLUGIN_SERVER (Claude Code's), their ${CLAUDE_PLUGIN_ROOT}
	// expanded and a stdio server's environment holding it.
	MCPServers map[string]mcp.ServerDef
	// LSPServers are its language servers (.lsp.json, the manifest's
	// lspServers), named as written, ${CLAUDE_PLUGIN_ROOT} expanded.
	LSPServers []lsp.Server
	// Warnings are its problems, one line each, each naming the plugin.
	Warnings []string
}

// ID is the plugin's name@marketplace, the key of enabledPlugins.
func (p Plugin) ID() string { return p.Name + "@" + p.Marketplace }

// warn adds a warning naming the plugin.
func (p *Plugin) warn(format string, a ...any) {
	p.Warnings = append(p.Warnings, "plugin "+p.ID()+": "+fmt.Sprintf(format, a...))
}

// Contents lists what the plugin contributes, for a person deciding
// whether to install or keep it: its commands, agents and skills by name,
// every hook with the command it runs and every MCP server with its
// command line or URL. Each line is indented by two spaces.
func (p Plugin) Contents() []string {
	var out []string
	list := func(what string, names []string) {
		if len(names) > 0 {
			out = append(out, fmt.Sprintf("  %s: %s", what, strings.Join(names, ", ")))
		}
	}
	var names []string
	for _, c := range p.Commands {
		names = append(names, "/"+c.Name)
	}
	list("commands", names)
	names = nil
	for _, a := range p.Agents {
		names = append(names, a.Name)
	}
	list("agents", names)
	names = nil
	for _, s := range p.Skills {
		names = append(names, s.Name)
	}
	list("skills", names)
	if len(p.Hooks) > 0 {
		out = append(out, "  hooks (run as you, outside the sandbox, on their events):")
		for _, h := range p.Hooks {
			what := h.Event
			if h.Matcher != "" {
				what += " " + h.Matcher
			}
			out = append(out, fmt.Sprintf("    %s: %s", what, h.Command))
		}
	}
	if len(p.MCPServers) > 0 {
		out = append(out, "  MCP servers (run as you, outside the sandbox):")
		for _, name := range slices.Sorted(maps.Keys(p.MCPServers)) {
			s := p.MCPServers[name]
			what := s.URL
			if s.Command != "" {
				what = strings.Join(append([]string{s.Command}, s.Args...), " ")
			}
			out = append(out, fmt.Sprintf("    %s: %s", name, what))
		}
	}
	if len(out) == 0 {
		out = append(out, "  nothing agent can load")
	}
	return out
}

// Counts is a short line of what the plugin contributes ("2 commands, 1
// hook").
func (p Plugin) Counts() string {
	var parts []string
	add := func(n int, one string) {
		if n == 0 {
			return
		}
		if n == 1 {
			parts = append(parts, "1 "+one)
			return
		}
		parts = append(parts, fmt.Sprintf("%d %ss", n, one))
	}
	add(len(p.Commands), "command")
	add(len(p.Agents), "agent")
	add(len(p.Skills), "skill")
	add(len(p.Hooks), "hook")
	add(len(p.MCPServers), "MCP server")
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}

// validName is a plugin's or a marketplace's name: letters, digits, dots,
// hyphens and underscores, starting with a letter or digit, at most 64
// (it names a directory and prefixes commands).
var validName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`) })

// CheckName returns an error when name cannot name a plugin or a
// marketplace.
func CheckName(name string) error {
	if !validName().MatchString(name) {
		return fmt.Errorf("name %q: use letters, digits, '.', '-' and '_' (at most 64, starting with a letter or digit)", name)
	}
	return nil
}

// SplitID splits "name@marketplace"; marketplace is "" without an @.
func SplitID(id string) (name, marketplace string) {
	name, marketplace, _ = strings.Cut(id, "@")
	return name, marketplace
}
