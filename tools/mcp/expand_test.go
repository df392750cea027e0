package mcp

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestExpand(t *testing.T) {
	env := map[string]string{"HOME": "/home/ada", "EMPTY": "", "PORT": "8080"}
	getenv := func(k string) string { return env[k] }
	vars := map[string]string{"CLAUDE_PLUGIN_ROOT": "/plugins/fmt", "HOME": "/from/vars"}
	for _, tc := range []struct {
		in, want string
		missing  []string
	}{
		{"${HOME}/bin", "/home/ada/bin", nil},
		{"${PORT:-3000}", "8080", nil},
		{"${UNSET:-3000}", "3000", nil},
		{"${EMPTY:-fallback}", "fallback", nil}, // POSIX :- takes the default for an empty value too
		{"${UNSET:-}", "", nil},
		{"${UNSET:-a:-b}", "a:-b", nil},
		{"${UNSET}", "${UNSET}", []string{"UNSET"}},
		{"${UNSET}-${UNSET}-${OTHER}", "${UNSET}-${UNSET}-${OTHER}", []string{"UNSET", "OTHER"}},
		{"$HOME and ${HOME%/*} stay", "$HOME and ${HOME%/*} stay", nil},
		{"${CLAUDE_PLUGIN_ROOT}/server.js", "${CLAUDE_PLUGIN_ROOT}/server.js", []string{"CLAUDE_PLUGIN_ROOT"}},
	} {
		got, missing := Expand(tc.in, nil, getenv)
		if got != tc.want || !slices.Equal(missing, tc.missing) {
			t.Errorf("Expand(%q) = %q, missing %q; want %q, %q", tc.in, got, missing, tc.want, tc.missing)
		}
	}
	if got, _ := Expand("${CLAUDE_PLUGIN_ROOT}/server.js ${HOME}", vars, getenv); got != "/plugins/fmt/server.js /from/vars" {
		t.Errorf("with vars: %q, want the extra variables first", got)
	}
}

// Resolve expands ${VAR} and ${VAR:-default} in a server's command, args,
// env, url and headers (Claude Code's five places); a variable without a
// value or default skips the server naming it; a provider key never
// reaches a command line or URL.
func TestResolveExpandsReferences(t *testing.T) {
	env := map[string]string{"TOOLS": "/opt/tools", "TOKEN": "t0k", "OPENAI_API_KEY": "sk-secret"}
	getenv := func(k string) string { return env[k] }
	servers := map[string]ServerDef{
		"stdio": {Command: "${TOOLS}/bin/srv", Args: []string{"--port", "${PORT:-3000}", "--root=${ROOT:-.}"},
			Env: map[string]string{"LEVEL": "${LOG_LEVEL:-info}", "AUTH": "Bearer ${TOKEN}"}},
		"http":    {URL: "https://${HOST:-mcp.example.com}/mcp", Headers: map[string]string{"Authorization": "Bearer ${TOKEN:-none}"}},
		"missing": {Command: "srv", Args: []string{"${NOT_SET}"}, Env: map[string]string{"X": "${ALSO_NOT_SET}"}},
		"key":     {Command: "srv", Args: []string{"--key=${OPENAI_API_KEY}"}},
		"plugin":  {Command: "${CLAUDE_PLUGIN_ROOT}/srv", Vars: map[string]string{"CLAUDE_PLUGIN_ROOT": "/p"}},
	}
	cfgs, err := Resolve(servers, "test", "/work", []string{"OPENAI_API_KEY"}, getenv)
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]Config{}
	for _, c := range cfgs {
		by[c.Name] = c
	}
	s := by["stdio"]
	if s.Command != "/opt/tools/bin/srv" || !slices.Equal(s.Args, []string{"--port", "3000", "--root=."}) || s.Skipped != "" {
		t.Errorf("stdio: command %q args %q skipped %q", s.Command, s.Args, s.Skipped)
	}
	if !slices.Contains(s.Env, "LEVEL=info") || !slices.Contains(s.Env, "AUTH=Bearer t0k") || !slices.Equal(s.EnvNames, []string{"AUTH", "LEVEL"}) {
		t.Errorf("stdio: env %q (names %q)", s.Env[len(s.Env)-2:], s.EnvNames)
	}
	if slices.ContainsFunc(s.Env, func(kv string) bool { return strings.HasPrefix(kv, "OPENAI_API_KEY=") }) {
		t.Error("stdio: the provider key reached the server's environment")
	}
	if h := by["http"]; h.URL != "https://mcp.example.com/mcp" || h.Headers["Authorization"] != "Bearer t0k" {
		t.Errorf("http: url %q headers %q", h.URL, h.Headers)
	}
	if m := by["missing"]; !strings.Contains(m.Skipped, "$ALSO_NOT_SET, $NOT_SET") {
		t.Errorf("missing: skipped %q, want both variables named", m.Skipped)
	}
	if k := by["key"]; !strings.Contains(k.Skipped, "$OPENAI_API_KEY") || strings.Contains(strings.Join(k.Args, " "), "sk-secret") {
		t.Errorf("key: args %q skipped %q; want it skipped with the key unexpanded", k.Args, k.Skipped)
	}
	if p := by["plugin"]; p.Command != "/p/srv" || p.Skipped != "" {
		t.Errorf("plugin: command %q skipped %q", p.Command, p.Skipped)
	}
}

// $MCP_TIMEOUT and $MCP_TOOL_TIMEOUT (milliseconds, Claude Code's) set
// the timeouts of the servers that set none; a server's own wins; .mcp.json's
// timeout is a call's, in milliseconds.
func TestTimeoutsFromTheEnvironment(t *testing.T) {
	env := map[string]string{MCPTimeoutEnv: "45000", MCPToolTimeoutEnv: "120000"}
	getenv := func(k string) string { return env[k] }
	fromJSON, err := ParseClaudeJSON([]byte(`{"mcpServers":{"j":{"command":"srv","timeout":90000}}}`))
	if err != nil {
		t.Fatal(err)
	}
	servers := map[string]ServerDef{"plain": {Command: "srv"}, "own": {Command: "srv", StartupTimeout: "2m", Timeout: "5s"}, "j": fromJSON["j"]}
	cfgs, err := Resolve(servers, "test", "", nil, getenv)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]time.Duration{"plain": {45 * time.Second, 2 * time.Minute}, "own": {2 * time.Minute, 5 * time.Second}, "j": {45 * time.Second, 90 * time.Second}}
	for _, c := range cfgs {
		if w := want[c.Name]; c.StartupTimeout != w[0] || c.Timeout != w[1] {
			t.Errorf("%s: startup %s, call %s; want %s, %s", c.Name, c.StartupTimeout, c.Timeout, w[0], w[1])
		}
	}
	env[MCPTimeoutEnv] = "30s"
	if _, err := Resolve(servers, "test", "", nil, getenv); err == nil || !strings.Contains(err.Error(), "MCP_TIMEOUT") {
		t.Errorf("MCP_TIMEOUT=30s: %v, want an error naming it", err)
	}
	if _, err := ParseClaudeJSON([]byte(`{"mcpServers":{"j":{"command":"srv","timeout":-1}}}`)); err == nil {
		t.Error("a negative timeout was accepted")
	}
}
