// Package lsp runs the language servers of a session's directory over the
// Language Server Protocol (3.17, stdio JSON-RPC; microsoft.github.io/
// language-server-protocol/specifications/lsp/3.17/specification): started
// lazily the first time a file of their language is read or changed,
// restarted with backoff when they crash and then given up. After a change
// it tells which errors and warnings the change introduced, compared with
// the files' diagnostics before it; its tool (lsp) navigates code.
//
// The protocol's types are those generated from the LSP metamodel
// (github.com/charmbracelet/x/powernap/pkg/lsp/protocol, gopls's), the
// wire is github.com/sourcegraph/jsonrpc2.
package lsp

import (
	"encoding/json"
	"fmt"
	"maps"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

// Server is one language server's configuration.
type Server struct {
	// Name names the server in notes, /lsp and agent doctor ("gopls").
	Name string
	// Command and Args start it; it speaks LSP on its standard input and
	// output.
	Command string
	Args    []string
	// Extensions are the file name extensions it serves, with the dot
	// (".go"); a name such as "Makefile" matches a base name.
	Extensions []string
	// LanguageIDs map an extension to the LSP language id of its files
	// (".tsx": "typescriptreact"); one missing takes the common id of the
	// extension, else the extension without its dot.
	LanguageIDs map[string]string
	// RootMarkers are files whose directory is the server's workspace
	// root (go.mod, package.json): the nearest above a file, within the
	// session's directory; the session's directory when none is found.
	RootMarkers []string
	// InitOptions are the initialize request's initializationOptions, and
	// Settings the answer to workspace/configuration (nil: none).
	InitOptions any
	Settings    any
	// Env are variables added to the server's environment (KEY=VALUE).
	Env []string
	// Source says where the configuration came from: "config" (the
	// config file's [lsp.NAME]), "PATH" (a common server found on PATH),
	// a repository's .lsp.json or a plugin's path.
	Source string
	// Untrusted marks a repository's own server: Options.Allow decides
	// before it first starts.
	Untrusted bool
}

// LanguageID is the LSP language id of a file with extension ext.
func (s Server) LanguageID(ext string) string {
	if id := s.LanguageIDs[ext]; id != "" {
		return id
	}
	if id := commonLanguageIDs[ext]; id != "" {
		return id
	}
	return strings.TrimPrefix(ext, ".")
}

// serves reports whether s serves the file at path.
func (s Server) serves(path string) bool {
	base, ext := filepath.Base(path), filepath.Ext(path)
	for _, e := range s.Extensions {
		if e == ext || e == base {
			return true
		}
	}
	return false
}

// commonLanguageIDs are the LSP specification's language identifiers of
// common extensions ("Text Document Item": the table of known language
// identifiers).
var commonLanguageIDs = map[string]string{
	".go": "go", ".mod": "go.mod", ".ts": "typescript", ".tsx": "typescriptreact", ".js": "javascript",
	".jsx": "javascriptreact", ".mjs": "javascript", ".cjs": "javascript", ".mts": "typescript", ".cts": "typescript",
	".py": "python", ".pyi": "python", ".rs": "rust", ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp",
	".hpp": "cpp", ".hh": "cpp",
}

// known are the common servers used, with no configuration, when their
// command is on PATH, in this order (the first that serves a file wins).
var known = []Server{
	// gopls checks the packages that import a changed one only after
	// diagnosticsDelay (1 s by default): at once, an edit's wait sees
	// what it broke in them.
	{Name: "gopls", Command: "gopls", Extensions: []string{".go"}, RootMarkers: []string{"go.work", "go.mod"}, Settings: map[string]any{"diagnosticsDelay": "0s"}},
	{Name: "typescript-language-server", Command: "typescript-language-server", Args: []string{"--stdio"},
		Extensions: []string{".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts"}, RootMarkers: []string{"tsconfig.json", "jsconfig.json", "package.json"}},
	{Name: "pyright", Command: "pyright-langserver", Args: []string{"--stdio"}, Extensions: []string{".py", ".pyi"},
		RootMarkers: []string{"pyrightconfig.json", "pyproject.toml", "setup.py", "setup.cfg", "requirements.txt"}},
	{Name: "basedpyright", Command: "basedpyright-langserver", Args: []string{"--stdio"}, Extensions: []string{".py", ".pyi"},
		RootMarkers: []string{"pyrightconfig.json", "pyproject.toml", "setup.py", "setup.cfg", "requirements.txt"}},
	{Name: "rust-analyzer", Command: "rust-analyzer", Extensions: []string{".rs"}, RootMarkers: []string{"Cargo.toml"}},
	{Name: "clangd", Command: "clangd", Extensions: []string{".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh"},
		RootMarkers: []string{"compile_commands.json", "compile_flags.txt", ".clangd"}},
}

// KnownNames are the names of the common servers agent starts with no
// configuration when their command is on PATH.
func KnownNames() []string {
	names := make([]string, len(known))
	for i, s := range known {
		names[i] = s.Name
	}
	return names
}

// File is the config file's [lsp] table: its settings, and a sub-table
// per server ([lsp.NAME]). Example:
//
//	[lsp]
//	diagnostics_wait = "2s"   # how long an edit waits for the servers' diagnostics
//	enabled = true            # false: no language server at all
//
//	[lsp.gopls]               # a common server's name changes its settings
//	initialization_options = { staticcheck = true }
//
//	[lsp.zls]
//	command = "zls"
//	args = []
//	extensions = [".zig"]
//	root_markers = ["build.zig"]
//	env = { ZIG_LOG = "warn" }
//
//	[lsp.clangd]
//	disabled = true           # never start this one
type File struct {
	// DiagnosticsWait is a Go duration ("" takes DefaultWait).
	DiagnosticsWait string
	// Enabled false turns every server off (nil: on).
	Enabled *bool
	// Servers are the [lsp.NAME] tables.
	Servers map[string]ServerFile
}

// ServerFile is one [lsp.NAME] table.
type ServerFile struct {
	Command       string            `json:"command"`
	Args          []string          `json:"args"`
	Extensions    []string          `json:"extensions"`
	LanguageIDs   map[string]string `json:"language_ids"`
	RootMarkers   []string          `json:"root_markers"`
	InitOptions   any               `json:"initialization_options"`
	Settings      any               `json:"settings"`
	Env           map[string]string `json:"env"`
	Disabled      bool              `json:"disabled"`
	hasExtensions bool
}

// UnmarshalTOML decodes the [lsp] table (github.com/BurntSushi/toml's
// Unmarshaler): its own keys, and a table per server; an unknown key is
// an error that names it.
func (f *File) UnmarshalTOML(v any) error {
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("lsp: want a table, got %T", v)
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		switch val := m[k]; k {
		case "diagnostics_wait":
			s, ok := val.(string)
			if !ok {
				return fmt.Errorf("lsp.diagnostics_wait: want a duration such as \"2s\", got %v", val)
			}
			f.DiagnosticsWait = s
		case "enabled":
			b, ok := val.(bool)
			if !ok {
				return fmt.Errorf("lsp.enabled: want true or false, got %v", val)
			}
			f.Enabled = &b
		default:
			t, ok := val.(map[string]any)
			if !ok {
				return fmt.Errorf("lsp.%s: unknown key (a server's table is [lsp.%s], with command, args, extensions, ...)", k, k)
			}
			sf, err := decodeServerFile(k, t)
			if err != nil {
				return err
			}
			if f.Servers == nil {
				f.Servers = map[string]ServerFile{}
			}
			f.Servers[k] = sf
		}
	}
	return nil
}

// decodeServerFile decodes one [lsp.NAME] table strictly.
func decodeServerFile(name string, t map[string]any) (ServerFile, error) {
	allowed := []string{"command", "args", "extensions", "language_ids", "root_markers", "initialization_options", "settings", "env", "disabled"}
	for k := range t {
		if !slices.Contains(allowed, k) {
			return ServerFile{}, fmt.Errorf("lsp.%s: unknown key %q (want one of %s)", name, k, strings.Join(allowed, ", "))
		}
	}
	data, err := json.Marshal(t)
	if err != nil {
		return ServerFile{}, fmt.Errorf("lsp.%s: %w", name, err)
	}
	var sf ServerFile
	if err := json.Unmarshal(data, &sf); err != nil {
		return ServerFile{}, fmt.Errorf("lsp.%s: %w", name, err)
	}
	_, sf.hasExtensions = t["extensions"]
	return sf, nil
}

// DefaultWait is how long an edit waits, by default, for the language
// servers to publish the diagnostics of the changed files.
const DefaultWait = 2 * time.Second

// Settings are the resolved [lsp] table.
type Settings struct {
	// Off is true when no server may start ([lsp] enabled = false).
	Off bool
	// Wait bounds an edit's wait for diagnostics.
	Wait time.Duration
	// Configured are the config file's servers, and Disabled the names
	// it turns off; Servers adds the common ones found on PATH.
	Configured []Server
	Disabled   []string
}

// Resolve checks f; where names the config file for errors.
func Resolve(f File, where string) (Settings, error) {
	s := Settings{Off: f.Enabled != nil && !*f.Enabled, Wait: DefaultWait}
	if f.DiagnosticsWait != "" {
		d, err := time.ParseDuration(f.DiagnosticsWait)
		if err != nil || d < 0 {
			return s, fmt.Errorf("%s: lsp.diagnostics_wait = %q: want a duration such as \"2s\"", where, f.DiagnosticsWait)
		}
		s.Wait = d
	}
	for _, name := range slices.Sorted(maps.Keys(f.Servers)) {
		sf := f.Servers[name]
		if sf.Disabled {
			s.Disabled = append(s.Disabled, name)
			continue
		}
		srv, err := sf.server(name, "config")
		if err != nil {
			return s, fmt.Errorf("%s: %w", where, err)
		}
		s.Configured = append(s.Configured, srv)
	}
	return s, nil
}

// server is sf as a Server named name; a common server's name fills what
// sf leaves out.
func (sf ServerFile) server(name, source string) (Server, error) {
	srv := Server{Name: name, Source: source}
	for _, k := range known {
		if k.Name == name {
			srv = k
			srv.Source = source
		}
	}
	if sf.Command != "" {
		srv.Command = sf.Command
	}
	if sf.Args != nil { // args = [] clears a common server's
		srv.Args = sf.Args
	}
	if sf.hasExtensions || len(sf.Extensions) > 0 {
		srv.Extensions = sf.Extensions
	}
	if sf.LanguageIDs != nil {
		srv.LanguageIDs = sf.LanguageIDs
	}
	if sf.RootMarkers != nil {
		srv.RootMarkers = sf.RootMarkers
	}
	if sf.InitOptions != nil {
		srv.InitOptions = sf.InitOptions
	}
	if sf.Settings != nil {
		srv.Settings = sf.Settings
	}
	for _, k := range slices.Sorted(maps.Keys(sf.Env)) {
		srv.Env = append(srv.Env, k+"="+sf.Env[k])
	}
	if srv.Command == "" {
		return srv, fmt.Errorf("lsp.%s: no command", name)
	}
	if len(srv.Extensions) == 0 {
		return srv, fmt.Errorf("lsp.%s: no extensions: say which files it serves (extensions = [\".zig\"])", name)
	}
	for _, e := range srv.Extensions {
		if e == "" || strings.ContainsAny(e, `/\*?[`) {
			return srv, fmt.Errorf("lsp.%s: extension %q: want \".ext\" or a file name (no patterns)", name, e)
		}
	}
	return srv, nil
}

// Servers are the servers of s for a session: the configured ones, then
// the common ones whose command lookPath finds and that neither a
// configured server of the same name nor Disabled replaces. Nil when Off.
func (s Settings) Servers(lookPath func(string) (string, error)) []Server {
	if s.Off {
		return nil
	}
	out := slices.Clone(s.Configured)
	for _, k := range known {
		if slices.Contains(s.Disabled, k.Name) || slices.ContainsFunc(out, func(c Server) bool { return c.Name == k.Name }) {
			continue
		}
		if _, err := lookPath(k.Command); err == nil {
			k.Source = "PATH"
			out = append(out, k)
		}
	}
	return out
}

// LookPath is exec.LookPath, for Settings.Servers.
func LookPath(name string) (string, error) { return exec.LookPath(name) }

// ClaudeServer is a server of Claude Code's plugin format: a plugin's
// .lsp.json or its plugin.json's lspServers, keyed by name
// (code.claude.com/docs/en/plugins-reference, "LSP servers").
type ClaudeServer struct {
	Command               string            `json:"command"`
	Args                  []string          `json:"args"`
	ExtensionToLanguage   map[string]string `json:"extensionToLanguage"`
	Env                   map[string]string `json:"env"`
	InitializationOptions any               `json:"initializationOptions"`
	Settings              any               `json:"settings"`
	Transport             string            `json:"transport"`
	WorkspaceFolder       string            `json:"workspaceFolder"`
	StartupTimeout        any               `json:"startupTimeout"`
	ShutdownTimeout       any               `json:"shutdownTimeout"`
	RestartOnCrash        any               `json:"restartOnCrash"`
	MaxRestarts           any               `json:"maxRestarts"`
}

// ParseClaude reads Claude Code's LSP server map (the object of a
// .lsp.json, or plugin.json's lspServers) found at source. vars expands
// ${NAME} in commands, arguments and env (${CLAUDE_PLUGIN_ROOT}); a
// server agent cannot run (a transport other than stdio) is left out with
// a warning, as is each field agent does not honour.
func ParseClaude(data []byte, source string, vars map[string]string) (servers []Server, warnings []string, err error) {
	var m map[string]ClaudeServer
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", source, err)
	}
	expand := func(s string) string {
		for k, v := range vars {
			s = strings.ReplaceAll(s, "${"+k+"}", v)
		}
		return s
	}
	for _, name := range slices.Sorted(maps.Keys(m)) {
		c := m[name]
		if c.Transport != "" && c.Transport != "stdio" {
			warnings = append(warnings, fmt.Sprintf("%s: LSP server %s: transport %q is not supported (stdio only); not started", source, name, c.Transport))
			continue
		}
		if c.Command == "" || len(c.ExtensionToLanguage) == 0 {
			warnings = append(warnings, fmt.Sprintf("%s: LSP server %s: command and extensionToLanguage are required; not started", source, name))
			continue
		}
		var ignored []string
		for field, v := range map[string]any{"workspaceFolder": c.WorkspaceFolder, "startupTimeout": c.StartupTimeout, "shutdownTimeout": c.ShutdownTimeout,
			"restartOnCrash": c.RestartOnCrash, "maxRestarts": c.MaxRestarts} {
			if v != nil && v != "" {
				ignored = append(ignored, field)
			}
		}
		if len(ignored) > 0 {
			sort.Strings(ignored)
			warnings = append(warnings, fmt.Sprintf("%s: LSP server %s: %s not honoured (agent restarts a crashed server with backoff, at most %d times)", source, name, strings.Join(ignored, ", "), maxRestarts))
		}
		srv := Server{Name: name, Command: expand(c.Command), LanguageIDs: map[string]string{}, InitOptions: c.InitializationOptions, Settings: c.Settings, Source: source}
		for _, a := range c.Args {
			srv.Args = append(srv.Args, expand(a))
		}
		for _, ext := range slices.Sorted(maps.Keys(c.ExtensionToLanguage)) {
			// Keys are extensions with their dot: another matches no file
			// (or, empty, every file without an extension).
			if len(ext) < 2 || ext[0] != '.' || strings.ContainsAny(ext, `/\`) {
				warnings = append(warnings, fmt.Sprintf("%s: LSP server %s: extension %q left out: want an extension with its dot (\".go\")", source, name, ext))
				continue
			}
			srv.Extensions = append(srv.Extensions, ext)
			srv.LanguageIDs[ext] = c.ExtensionToLanguage[ext]
		}
		if len(srv.Extensions) == 0 {
			warnings = append(warnings, fmt.Sprintf("%s: LSP server %s: no extension it can serve; not started", source, name))
			continue
		}
		for _, k := range slices.Sorted(maps.Keys(c.Env)) {
			srv.Env = append(srv.Env, k+"="+expand(c.Env[k]))
		}
		servers = append(servers, srv)
	}
	return servers, warnings, nil
}

// Definition is the canonical text of s, for a trust store: what it runs,
// with which environment, and what it is told (initialization options and
// settings can name programs a server runs: typescript-language-server's
// tsserver.path, gopls's buildFlags), so that a change to any of them is
// asked again.
func (s Server) Definition() string {
	data, _ := json.Marshal(struct {
		Command     string
		Args        []string
		Env         []string
		Ext         []string
		LanguageIDs map[string]string `json:",omitempty"`
		InitOptions any               `json:",omitempty"`
		Settings    any               `json:",omitempty"`
	}{s.Command, s.Args, s.Env, s.Extensions, s.LanguageIDs, s.InitOptions, s.Settings})
	return string(data)
}
