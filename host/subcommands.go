package host

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/tools/mcp"
	"github.com/agent-dev/agent/tools/shell"
	"github.com/agent-dev/agent/tools/shell/sandbox"
)

// This file is what agent's other commands (doctor, mcp, sessions) need
// of the settings, without opening a session.

// DescribeConfigFile says what is at the config file's path: nothing
// (defaults apply), a file that cannot be read, a file that does not parse
// or has unknown keys (with the parser's words), or a valid file.
func DescribeConfigFile(path string) string {
	if path == "" {
		return "(no config directory: defaults apply)"
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return path + " (not found: defaults apply)"
	} else if err != nil {
		return path + " (cannot be read: " + err.Error() + ")"
	}
	if _, err := loadFileConfig(path, true); err != nil {
		return path + " (invalid: " + strings.TrimPrefix(err.Error(), "config "+path+": ") + ")"
	}
	return path
}

// DefaultConfigPath is $XDG_CONFIG_HOME/agent/config.toml, or
// ~/.config/agent/config.toml when XDG_CONFIG_HOME is unset.
func DefaultConfigPath(getenv func(string) string) string { return defaultConfigPath(getenv) }

// SandboxStatus builds the sandbox a session in dir would have (probing
// what this machine can enforce) and returns its state, the sandbox mode
// of the settings even when they do not resolve otherwise.
func (h *Host) SandboxStatus(dir string) (sandbox.Status, error) {
	sb, err := newSandbox(h.cfg.Yolo || h.cfg.PermissionMode == ModeYolo, h.settings, h.protectedPaths(dir), h.cfg.Getenv, nil)
	if err != nil {
		return sandbox.Status{}, err
	}
	defer sb.Close()
	return sb.Status(), nil
}

// EnvFilter is the filter of what commands (and a browser an MCP server
// opens) get of agent's environment.
func (s Settings) EnvFilter() shell.EnvFilter {
	return shell.EnvFilter{Strip: s.ProviderKeyEnvs, Keep: s.Sandbox.EnvKeep, Remove: s.Sandbox.EnvRemove}
}

// CommandEnviron is the environment of what the session runs outside the
// sandbox's command line (hooks, the status line command, language
// servers): agent's own (KEY=VALUE) without what EnvFilter removes, then
// Claude Code settings' env.
func (s Settings) CommandEnviron() []string {
	return append(s.EnvFilter().Environ(os.Environ()), s.CommandEnv...)
}

// SplitRules separates the permission rules that name tools (they start
// with mcp__) from the command rules.
func SplitRules(all []string) (commands, toolRules []string) { return splitRules(all) }

// ProfilePricer prices models from the config file: each profile's
// [price] table for its model, else the table of common models.
func (h *Host) ProfilePricer() func(model string) (providers.Price, bool) {
	overrides := map[string]providers.Price{}
	for _, p := range h.file.Profiles {
		if p.Price != nil && p.Model != "" {
			overrides[p.Model] = providers.Price{Input: p.Price.Input, Output: p.Price.Output, CacheRead: p.Price.CacheRead, CacheWrite: p.Price.CacheWrite}
		}
	}
	return func(model string) (providers.Price, bool) {
		if p, ok := overrides[model]; ok {
			return p, true
		}
		return providers.PriceOf(model)
	}
}

// keyEnvs are the provider keys' variables, kept out of what MCP servers
// and a browser get, also when the settings do not resolve.
func (h *Host) keyEnvs() []string {
	if h.settingsErr == nil {
		return h.settings.ProviderKeyEnvs
	}
	return []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"}
}

// mcpConfigs are the MCP servers of the config file and of dir's
// .mcp.json (the config's win a name both define), a project's started
// only when trusted before or with trustProject, then those of the
// plugins enabled in dir. It needs no model or key.
func (h *Host) mcpConfigs(dir string, trustProject bool) ([]mcp.Config, error) {
	cfgs, project, err := resolveMCP(h.file.MCP.Servers, dir, h.keyEnvs(), h.cfg.Getenv)
	if err != nil {
		return nil, err
	}
	decideProject(cfgs, project, h.trust, dir, Trust{MCP: trustProject})
	plugins, _ := h.enabledPlugins(dir)
	more, _ := pluginServers(plugins, dir, h.keyEnvs(), h.cfg.Getenv, cfgs)
	return append(cfgs, more...), nil
}

// MCPStatus starts dir's MCP servers (see mcpConfigs), waits for each (up
// to its startup timeout), stops them and returns their states. A server
// that needs a person's authorization fails: agent mcp login NAME gives it.
func (h *Host) MCPStatus(ctx context.Context, dir string, trustProject bool) ([]mcp.Status, error) {
	cfgs, err := h.mcpConfigs(dir, trustProject)
	if err != nil {
		return nil, err
	}
	attachOAuth(cfgs, h.oauth, nil, shell.EnvFilter{Strip: h.keyEnvs()}, false)
	m := mcp.NewManager(cfgs, mcp.Options{Version: Version(), Roots: []string{dir}, CacheDir: h.mcpToolsDir()})
	m.Start(ctx)
	m.Wait(ctx)
	defer m.Close()
	return m.Status(), nil
}

// MCPLogin forgets MCP server name's stored authorization, connects and
// runs the authorization the server asks for (the browser opens; notify
// hears the URL), waiting up to five minutes for the person. It returns
// the server's state and whether tokens are stored now. An unknown
// server, one that is no streamable HTTP server, or no data directory are
// UsageErrors.
func (h *Host) MCPLogin(ctx context.Context, dir, name string, trustProject bool, notify func(string)) (mcp.Status, bool, error) {
	cfgs, err := h.mcpConfigs(dir, trustProject)
	if err != nil {
		return mcp.Status{}, false, err
	}
	var one []mcp.Config
	for _, c := range cfgs {
		if c.Name == name {
			one = append(one, c)
		}
	}
	switch {
	case len(one) == 0:
		return mcp.Status{}, false, usagef("no MCP server named %s (agent mcp list lists them)", name)
	case one[0].URL == "" || one[0].SSE:
		return mcp.Status{}, false, usagef("MCP server %s is not a streamable HTTP server: OAuth is for those", name)
	case one[0].Skipped != "":
		return mcp.Status{}, false, fmt.Errorf("MCP server %s is skipped: %s", name, one[0].Skipped)
	case h.oauth == nil:
		return mcp.Status{}, false, usagef("no data directory for the tokens: set --db PATH or XDG_DATA_HOME")
	}
	if _, err := h.oauth.Remove(name); err != nil {
		return mcp.Status{}, false, err
	}
	one[0].Disabled = false
	attachOAuth(one, h.oauth, notify, shell.EnvFilter{Strip: h.keyEnvs()}, true)
	one[0].AuthTimeout = authTimeout
	m := mcp.NewManager(one, mcp.Options{Version: Version()})
	m.Start(ctx)
	m.Wait(ctx)
	statuses := m.Status()
	m.Close()
	return statuses[0], h.oauth.Stored(name, one[0].URL), nil
}

// PrintExtensions is agent doctor's part about the hooks of dir (each with
// its source and, for a repository's, whether it is trusted), custom
// commands and skills, written with line (a key, a format and its
// arguments).
func (h *Host) PrintExtensions(line func(string, string, ...any), dir string) {
	ext := loadExtensions(dir, h.settings)
	ps, _ := h.enabledPlugins(dir)
	for i := range ps {
		ps[i].Warnings = nil // PrintPlugins shows them
	}
	ext.addPlugins(ps, nil)
	a := &agent{dir: dir, ext: ext}
	store := h.trust
	if len(ext.hooks) == 0 {
		line("hooks", "none")
	} else {
		line("hooks", "%d (project hooks run once trusted; --trust-project headless)", len(ext.hooks))
		for _, l := range strings.Split(strings.TrimPrefix(hookListing(a, store), "Hooks:\n"), "\n") {
			line("", "%s", strings.TrimSpace(l))
		}
		line("", "%s", h.hookSandboxLine(dir, ext.hooks))
	}
	names := func(n int, name func(int) string) string {
		var out []string
		for i := range n {
			out = append(out, name(i))
		}
		return strings.Join(out, ", ")
	}
	var cmds []string
	for _, c := range ext.commands {
		if !c.Skill {
			cmds = append(cmds, "/"+c.Name)
		}
	}
	line("commands", "%d %s", len(cmds), strings.Join(cmds, ", "))
	line("skills", "%d %s", len(ext.skills), names(len(ext.skills), func(i int) string {
		if ext.skills[i].UserInvocable {
			return ext.skills[i].Name + " (/" + ext.skills[i].Command + ")"
		}
		return ext.skills[i].Name
	}))
	for _, w := range ext.warnings {
		line("", "%s", w)
	}
	agents, warnings := loadAgents(dir, h.settings, builtinToolNames, ext.skills)
	line("agents", "%d", len(agents))
	for _, a := range agents {
		line("", "%s  %s", a.Name, a.Path)
	}
	for _, w := range warnings {
		line("", "%s", w)
	}
	home, _ := os.UserHomeDir()
	instr := newInstructionSets(h.protectedPaths(dir)).of(dir)
	if n := instr.Names(); len(n) > 0 {
		line("instructions", "%d: %s", len(n), strings.Join(n, ", "))
	} else {
		line("instructions", "none (AGENTS.md, CLAUDE.md, CLAUDE.local.md, .claude/rules)")
	}
	for _, w := range instr.Warnings {
		line("", "%s", w)
	}
	cs := loadClaudeSettings(home, dir, settingsTrust(h.trust, dir, false), h.settings.EnvFilter())
	var read []string
	for _, f := range cs.files {
		if _, err := os.Stat(f.Path); err == nil {
			read = append(read, f.Path)
		}
	}
	if len(read) == 0 {
		line("claude settings", "none")
	} else {
		line("claude settings", "%s (a repository's allow rules, env and status line wait for your trust)", strings.Join(read, ", "))
	}
	for _, w := range cs.warnings {
		line("", "%s", w)
	}
}

// builtinToolNames are the names of the built-in tools a child may get in
// a session with skills, memory and background shells, which agent doctor
// checks agent definitions against without building a session
// (TestBuiltinToolNames keeps the list true).
var builtinToolNames = []string{"list_files", "read_file", "grep", "edit_file", "write_file", "bash", "todo_write",
	"web_fetch", "skill", "lsp", "memory_search", "memory_get", "memory_write", "bash_output", "kill_shell"}
