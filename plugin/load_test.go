package plugin

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// load loads the plugin of files as if installed by itself as name.
func load(t *testing.T, name string, files map[string]string) Plugin {
	t.Helper()
	root := filepath.Join(t.TempDir(), name)
	writeTree(t, root, files)
	return Load(root, Record{Name: name, Marketplace: LocalMarketplace})
}

// warnings joins a plugin's warnings, for searching.
func warnings(p Plugin) string { return strings.Join(p.Warnings, "\n") }

// A broken part of a plugin is a warning that names the plugin, and the
// rest still loads.
func TestLoadWarnsAndKeepsTheRest(t *testing.T) {
	p := load(t, "mixed", map[string]string{
		".claude-plugin/plugin.json": `{"name": "mixed", "commands": ["commands-without-dot", "./../escape", "./missing"], "outputStyles": "./styles", "lspServers": "./.lsp.json"}`,
		"commands/ok.md":             "Fine.\n",
		"commands/broken.md":         "---\ndescription: never closed\n",
		"commands/block.md":          "Run:\n```!\necho hi\n```\n",
		"agents/noname.md":           "---\ndescription: no name\n---\nx\n",
		"skills/nodesc/SKILL.md":     "---\nname: nodesc\n---\nx\n",
		"hooks/hooks.json": `{"hooks": {
  "PreToolUse": [{"hooks": [{"type": "command", "command": "python3 ${CLAUDE_PLUGIN_ROOT}/hooks/gone.py"}]}],
  "Stop": [{"hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/ok.sh", "statusMessage": "checking"}]}],
  "PostToolUse": [{"hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/ok.sh", "async": true}]}],
  "ConfigChange": [{"hooks": [{"type": "command", "command": "x"}]}]
}}`,
		"hooks/ok.sh": "#!/bin/sh\nexit 0\n",
		".mcp.json":   `{"mcpServers": `,
	})
	cmds, agents, skills := names(p)
	// A skill without a description takes its body's first line, as in
	// Claude Code.
	if !slices.Equal(cmds, []string{"mixed:block", "mixed:ok"}) || len(agents) != 0 || !slices.Equal(skills, []string{"mixed:nodesc"}) {
		t.Errorf("commands %q, agents %q, skills %q", cmds, agents, skills)
	}
	if len(p.Hooks) != 1 || p.Hooks[0].Event != "Stop" {
		t.Errorf("hooks %+v, want the Stop hook alone", p.Hooks)
	}
	w := warnings(p)
	for _, want := range []string{
		"plugin.json fields not read by agent: outputStyles",
		`plugin.json lspServers: "./.lsp.json": no such file or directory`,
		`path "commands-without-dot": must start with ./`,
		`path "./../escape": must stay inside the plugin`,
		`"./missing"`,
		"broken.md",
		"noname.md: no name",
		"PreToolUse hook `python3 ${CLAUDE_PLUGIN_ROOT}/hooks/gone.py` skipped: it runs ${CLAUDE_PLUGIN_ROOT}/hooks/gone.py, which the plugin does not have",
		"async: agent does not run hooks in the background",
		`"ConfigChange" skipped`,
		"hooks' fields not read by agent: statusMessage",
		"MCP servers",
	} {
		if !strings.Contains(w, want) {
			t.Errorf("the warnings lack %q:\n%s", want, w)
		}
	}
	for _, line := range p.Warnings {
		if !strings.HasPrefix(line, "plugin mixed@local: ") {
			t.Errorf("a warning that does not name the plugin: %q", line)
		}
	}
}

// Without a manifest the plugin is found in its default places; hooks and
// servers may also be written inline in plugin.json, and a file of hooks
// named there adds to hooks/hooks.json.
func TestLoadManifestForms(t *testing.T) {
	bare := load(t, "bare", map[string]string{"commands/a.md": "A.\n", "agents/b.md": "---\nname: b\ndescription: B\n---\nB.\n"})
	if cmds, agents, _ := names(bare); !slices.Equal(cmds, []string{"bare:a"}) || !slices.Equal(agents, []string{"bare:b"}) || len(bare.Warnings) > 0 {
		t.Errorf("without a manifest: %q %q, warnings %q", cmds, agents, bare.Warnings)
	}
	inline := load(t, "inline", map[string]string{
		".claude-plugin/plugin.json": `{"name": "inline",
  "hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "echo start"}]}]},
  "mcpServers": {"srv": {"type": "http", "url": "https://example.com/${CLAUDE_PLUGIN_ROOT}"}}}`,
	})
	if len(inline.Hooks) != 1 || inline.Hooks[0].Command != "echo start" || len(inline.MCPServers) != 1 {
		t.Errorf("inline: hooks %+v, servers %+v, warnings %q", inline.Hooks, inline.MCPServers, inline.Warnings)
	}
	if srv := inline.MCPServers["plugin_inline_srv"]; srv.URL != "https://example.com/"+inline.Root || srv.Env != nil {
		t.Errorf("the HTTP server %+v: want its URL expanded and no environment", srv)
	}
	files := load(t, "files", map[string]string{
		".claude-plugin/plugin.json": `{"name": "files", "hooks": "./config/more-hooks.json", "mcpServers": ["./config/servers.json"]}`,
		"hooks/hooks.json":           `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo stop"}]}]}}`,
		"config/more-hooks.json":     `{"hooks": {"PreCompact": [{"hooks": [{"type": "command", "command": "echo compact"}]}]}}`,
		"config/servers.json":        `{"one": {"command": "one-server"}}`,
	})
	var events []string
	for _, h := range files.Hooks {
		events = append(events, h.Event)
	}
	if !slices.Equal(events, []string{"Stop", "PreCompact"}) || files.MCPServers["plugin_files_one"].Command != "one-server" || len(files.Warnings) > 0 {
		t.Errorf("files: hook events %q, servers %+v, warnings %q", events, files.MCPServers, files.Warnings)
	}
}

// A marketplace entry with strict: false defines the plugin alone; a
// plugin.json that declares components as well is a conflict, and the
// plugin loads nothing.
func TestLoadStrictConflict(t *testing.T) {
	root := filepath.Join(t.TempDir(), "p")
	writeTree(t, root, map[string]string{".claude-plugin/plugin.json": `{"name": "p", "commands": "./x"}`, "x/a.md": "A.\n"})
	off := false
	p := Load(root, Record{Name: "p", Marketplace: "m", Entry: []byte(`{"name": "p", "commands": ["./x/a.md"]}`), Strict: &off})
	if len(p.Commands) != 0 || !strings.Contains(warnings(p), "strict: false") {
		t.Errorf("commands %+v, warnings %q", p.Commands, p.Warnings)
	}
}

// A plugin whose installed copy is gone contributes nothing and says how
// to get it back.
func TestLoadMissingCopy(t *testing.T) {
	p := Load(filepath.Join(t.TempDir(), "gone"), Record{Name: "gone", Marketplace: "m"})
	if p.Counts() != "nothing" || !strings.Contains(warnings(p), "install it again") {
		t.Errorf("%s, warnings %q", p.Counts(), p.Warnings)
	}
}

// A plugin's language servers are read from .lsp.json and plugin.json's
// lspServers (Claude Code's plugin format), ${CLAUDE_PLUGIN_ROOT}
// expanded.
func TestLoadReadsThePluginsLanguageServers(t *testing.T) {
	p := load(t, "golang", map[string]string{
		".claude-plugin/plugin.json": `{"name": "golang", "lspServers": {"pyright": {"command": "pyright-langserver", "args": ["--stdio"], "extensionToLanguage": {".py": "python"}}}}`,
		".lsp.json":                  `{"go": {"command": "${CLAUDE_PLUGIN_ROOT}/bin/gopls", "args": ["serve"], "extensionToLanguage": {".go": "go"}, "transport": "stdio", "maxRestarts": 3}}`,
	})
	root := p.Root
	if len(p.LSPServers) != 2 {
		t.Fatalf("servers %+v, warnings %q", p.LSPServers, p.Warnings)
	}
	gopls := p.LSPServers[0]
	if gopls.Name != "go" || gopls.Command != root+"/bin/gopls" || !slices.Equal(gopls.Args, []string{"serve"}) || gopls.LanguageID(".go") != "go" {
		t.Errorf("go server %+v", gopls)
	}
	if !slices.Contains(gopls.Env, RootVar+"="+root) {
		t.Errorf("env %q lacks %s", gopls.Env, RootVar)
	}
	if !strings.Contains(strings.Join(p.Warnings, "\n"), "maxRestarts not honoured") {
		t.Errorf("warnings %q do not name maxRestarts", p.Warnings)
	}
}
