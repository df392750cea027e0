package plugin

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/agent-dev/agent/hooks"
	"github.com/agent-dev/agent/lsp"
	"github.com/agent-dev/agent/tools/mcp"
)

// loadHooks reads the plugin's hooks: hooks/hooks.json, the manifest's
// hooks files and its inline hooks, in Claude Code's shape ({"hooks":
// {"EVENT": [...]}}; inline, the object of events alone is taken too).
// Each hook gets the plugin's name and CLAUDE_PLUGIN_ROOT in its
// environment; ${CLAUDE_PLUGIN_ROOT} in its command is expanded where the
// directory's path needs no quoting (else the shell expands it from the
// environment). A hook whose script, named through ${CLAUDE_PLUGIN_ROOT},
// is not in the plugin is skipped: run, it would fail on every event (a
// python3 that cannot open its file exits 2, which blocks).
func (p *Plugin) loadHooks(m Manifest) {
	for _, path := range p.paths("hooks", filepath.Join("hooks", "hooks.json"), m.Hooks.Paths) {
		data, err := readSmall(path)
		if err != nil {
			p.warn("hooks %s: %v", path, err)
			continue
		}
		p.addHooks(data, path)
	}
	if m.Hooks.Object != nil {
		data := []byte(m.Hooks.Object)
		var probe map[string]json.RawMessage
		if json.Unmarshal(data, &probe) == nil {
			if _, ok := probe["hooks"]; !ok {
				data, _ = json.Marshal(map[string]json.RawMessage{"hooks": m.Hooks.Object})
			}
		}
		p.addHooks(data, filepath.Join(p.Root, filepath.FromSlash(ManifestPath)))
	}
}

// addHooks adds the hooks of one hooks file (data, read from source).
func (p *Plugin) addHooks(data []byte, source string) {
	hs, warnings, err := hooks.ParseClaude(data, source, false)
	if err != nil {
		p.warn("hooks: %v", err)
		return
	}
	p.addWarnings(warnings)
	for _, h := range hs {
		if missing := p.missingScript(h.Command); missing != "" {
			p.warn("%s hook `%s` skipped: it runs %s, which the plugin does not have", h.Event, h.Command, missing)
			continue
		}
		if safePath().MatchString(p.Root) {
			h.Command = p.expand(h.Command)
		}
		h.Plugin = p.ID()
		h.Env = []string{RootVar + "=" + p.Root}
		p.Hooks = append(p.Hooks, h)
	}
}

// safePath is a path that means the same to the shell quoted or not.
var safePath = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9/._+,:@=~-]+$`) })

// scriptRef is a file a command names through the plugin's root.
var scriptRef = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\$\{?` + RootVar + `\}?(/[^\s"'` + "`" + `;|&<>()$]*)`)
})

// missingScript returns the first file command names through
// ${CLAUDE_PLUGIN_ROOT} that the plugin lacks ("" when all are there).
func (p *Plugin) missingScript(command string) string {
	for _, m := range scriptRef().FindAllStringSubmatch(command, -1) {
		rel := strings.TrimRight(m[1], "/")
		if rel == "" {
			continue
		}
		if _, err := resolve(p.Root, "."+rel); err != nil {
			return rootRef + m[1]
		}
		if _, err := os.Stat(filepath.Join(p.Root, filepath.FromSlash(rel))); err != nil {
			return rootRef + m[1]
		}
	}
	return ""
}

// loadMCP reads the plugin's MCP servers: .mcp.json, the manifest's
// mcpServers files and its inline servers, each file either Claude Code's
// {"mcpServers": {...}} or the object of servers alone. A server is named
// plugin_PLUGIN_SERVER, ${CLAUDE_PLUGIN_ROOT} is expanded in its command,
// arguments, environment, URL and headers, and a stdio server gets
// CLAUDE_PLUGIN_ROOT in its environment.
func (p *Plugin) loadMCP(m Manifest) {
	for _, path := range p.paths("mcpServers", ".mcp.json", m.MCPServers.Paths) {
		data, err := readSmall(path)
		if err != nil {
			p.warn("MCP servers %s: %v", path, err)
			continue
		}
		p.addServers(data, path)
	}
	if m.MCPServers.Object != nil {
		p.addServers(m.MCPServers.Object, filepath.Join(p.Root, filepath.FromSlash(ManifestPath)))
	}
}

// addServers adds the servers of one file (data, read from source).
func (p *Plugin) addServers(data []byte, source string) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil {
		p.warn("MCP servers %s: %v", source, err)
		return
	}
	if _, ok := probe["mcpServers"]; !ok {
		data, _ = json.Marshal(map[string]any{"mcpServers": probe})
	}
	servers, err := mcp.ParseClaudeJSON(data)
	if err != nil {
		p.warn("MCP servers %s: %v", source, err)
		return
	}
	if p.MCPServers == nil {
		p.MCPServers = map[string]mcp.ServerDef{}
	}
	for _, name := range slices.Sorted(maps.Keys(servers)) {
		s := servers[name]
		s.Command = p.expand(s.Command)
		s.URL = p.expand(s.URL)
		args := make([]string, len(s.Args))
		for i, a := range s.Args {
			args[i] = p.expand(a)
		}
		s.Args = args
		s.Env, s.Headers = p.expandMap(s.Env), p.expandMap(s.Headers)
		if s.Command != "" {
			if s.Env == nil {
				s.Env = map[string]string{}
			}
			s.Env[RootVar] = p.Root
		}
		full := fmt.Sprintf("plugin_%s_%s", p.Name, name)
		if _, dup := p.MCPServers[full]; dup {
			p.warn("MCP server %s defined twice; the first is kept", name)
			continue
		}
		p.MCPServers[full] = s
	}
}

// expandMap expands ${CLAUDE_PLUGIN_ROOT} in m's values.
func (p *Plugin) expandMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = p.expand(v)
	}
	return out
}

// loadLSP reads the plugin's language servers: .lsp.json, the manifest's
// lspServers files and its inline map (Claude Code's "LSP servers" of the
// plugins reference), ${CLAUDE_PLUGIN_ROOT} expanded in their commands,
// arguments and environment, which also holds CLAUDE_PLUGIN_ROOT.
func (p *Plugin) loadLSP(m Manifest) {
	add := func(data []byte, source string) {
		servers, warnings, err := lsp.ParseClaude(data, source, map[string]string{RootVar: p.Root})
		if err != nil {
			p.warn("LSP servers: %v", err)
			return
		}
		for _, w := range warnings {
			p.warn("%s", w)
		}
		for _, s := range servers {
			if slices.ContainsFunc(p.LSPServers, func(o lsp.Server) bool { return o.Name == s.Name }) {
				p.warn("LSP server %s defined twice; the first is kept", s.Name)
				continue
			}
			s.Env = append(s.Env, RootVar+"="+p.Root)
			s.Source = "plugin " + p.ID()
			p.LSPServers = append(p.LSPServers, s)
		}
	}
	for _, path := range p.paths("lspServers", ".lsp.json", m.LSPServers.Paths) {
		data, err := readSmall(path)
		if err != nil {
			p.warn("LSP servers %s: %v", path, err)
			continue
		}
		add(data, path)
	}
	if m.LSPServers.Object != nil {
		add(m.LSPServers.Object, filepath.Join(p.Root, filepath.FromSlash(ManifestPath)))
	}
}
