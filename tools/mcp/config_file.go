package mcp

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agent-dev/agent/tools/mcp/oauth"
)

// File is the config file's [mcp] table:
//
//	[mcp.servers.everything]           # a stdio server, started in the working directory
//	command = "npx"
//	args = ["-y", "@modelcontextprotocol/server-everything"]
//	env = { DEBUG = "1" }
//	timeout = "60s"                    # a call; default 60s
//	startup_timeout = "10s"            # start and first tool list; default 10s
//
//	[mcp.servers.github]               # a streamable HTTP server
//	url = "https://api.githubcopilot.com/mcp/"
//	headers = { Authorization = "Bearer ${GITHUB_TOKEN}" }  # secrets only through ${VAR}
//	enabled = false
//
//	[mcp.servers.hub]                  # an HTTP server of the older HTTP+SSE transport
//	url = "http://127.0.0.1:3000/mcp"
//	transport = "sse"                  # "http" (streamable, the default) or "sse"
type File struct {
	Servers map[string]ServerDef `toml:"servers"`
}

// ServerDef is a server as the config file (a [mcp.servers.NAME] table)
// or a .mcp.json defines it, before its ${VAR} references are expanded.
type ServerDef struct {
	Command        string            `toml:"command"`
	Args           []string          `toml:"args"`
	Env            map[string]string `toml:"env"`
	URL            string            `toml:"url"`
	Transport      string            `toml:"transport"`
	Headers        map[string]string `toml:"headers"`
	Enabled        *bool             `toml:"enabled"`
	Timeout        string            `toml:"timeout"`
	StartupTimeout string            `toml:"startup_timeout"`
	OAuth          *OAuthDef         `toml:"oauth"`
	// Elicitation "defaults" accepts the server's forms with their
	// defaults where nobody can be asked (headless); "" declines them.
	Elicitation string `toml:"elicitation"`
	// Vars are variables its ${VAR} references see before the
	// environment (a plugin's ${CLAUDE_PLUGIN_ROOT}); never read from a
	// file.
	Vars map[string]string `toml:"-"`
}

// The environment variables Claude Code reads for MCP servers' timeouts,
// in milliseconds: MCPTimeoutEnv bounds a server's start (its
// StartupTimeout), MCPToolTimeoutEnv one call (its Timeout), for every
// server that sets none of its own.
const (
	MCPTimeoutEnv     = "MCP_TIMEOUT"
	MCPToolTimeoutEnv = "MCP_TOOL_TIMEOUT"
)

// Resolve resolves servers (the [mcp.servers] tables, a .mcp.json) into
// server configs, sorted by name. The ${VAR} and ${VAR:-default}
// references of a server's command, args, env, url and headers (and of
// its OAuth secrets) are expanded (see Expand, with its Vars); a server
// that refers to a variable that is not set and has no default is
// skipped, with a reason that names the variable. The provider keys'
// variables (keyEnvs) are never expanded into a command, an argument or a
// URL, which show in process lists, errors and logs: such a server is
// skipped too. A stdio server gets this process's environment without
// keyEnvs, plus its env table, and runs in dir. A server that sets no
// timeout or startup_timeout takes $MCP_TOOL_TIMEOUT or $MCP_TIMEOUT
// (milliseconds, as Claude Code reads them), else DefaultTimeout or
// DefaultStartupTimeout; a variable that is no positive number of
// milliseconds is an error (when there are servers).
func Resolve(servers map[string]ServerDef, where, dir string, keyEnvs []string, getenv func(string) string) ([]Config, error) {
	if len(servers) == 0 {
		return nil, nil // the variables matter only to servers
	}
	call, err := envMillis(MCPToolTimeoutEnv, getenv)
	if err != nil {
		return nil, err
	}
	startup, err := envMillis(MCPTimeoutEnv, getenv)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(servers))
	for n := range servers {
		names = append(names, n)
	}
	slices.Sort(names)
	var out []Config
	for _, name := range names {
		sc := servers[name]
		c, err := resolveOne(name, sc, where, dir, getenv)
		if err != nil {
			return nil, err
		}
		if c.Timeout == 0 {
			c.Timeout = call
		}
		if c.StartupTimeout == 0 {
			c.StartupTimeout = startup
		}
		var missing []string
		expand := func(v string) string {
			x, m := Expand(v, sc.Vars, getenv)
			for _, n := range m {
				if !slices.Contains(missing, n) {
					missing = append(missing, n)
				}
			}
			return x
		}
		c.Command, c.URL, c.Args = expand(sc.Command), expand(sc.URL), nil
		for _, a := range sc.Args {
			c.Args = append(c.Args, expand(a))
		}
		if keys := commandKeyRefs(sc, keyEnvs); len(keys) > 0 {
			c.Command, c.Args, c.URL = sc.Command, sc.Args, sc.URL // as written: the key's value stays out
			c.Skipped = fmt.Sprintf("its command, arguments or URL name the provider key $%s, which is never expanded there (they show in process lists and logs)", strings.Join(keys, ", $"))
		}
		if len(sc.Headers) > 0 {
			c.Headers = map[string]string{}
			for k, v := range sc.Headers {
				c.Headers[k] = expand(v)
			}
		}
		c.Env = serverEnv(sc, keyEnvs, expand)
		c.EnvNames = slices.Sorted(maps.Keys(sc.Env))
		if len(missing) > 0 && c.Skipped == "" {
			slices.Sort(missing)
			c.Skipped = fmt.Sprintf("it needs $%s, which is not set (give a default with ${VAR:-default})", strings.Join(missing, ", $"))
		}
		out = append(out, c)
	}
	return out, nil
}

// commandKeyRefs are the provider keys' variables (keyEnvs) that sc's
// command, arguments or URL refer to, sorted.
func commandKeyRefs(sc ServerDef, keyEnvs []string) []string {
	var refs []string
	for _, v := range append([]string{sc.Command, sc.URL}, sc.Args...) {
		for _, n := range RefNames(v) {
			if slices.Contains(keyEnvs, n) && !slices.Contains(refs, n) {
				refs = append(refs, n)
			}
		}
	}
	slices.Sort(refs)
	return refs
}

// envMillis reads the environment variable name as a number of
// milliseconds; 0 when it is not set.
func envMillis(name string, getenv func(string) string) (time.Duration, error) {
	v := strings.TrimSpace(getenv(name))
	if v == "" {
		return 0, nil
	}
	ms, err := strconv.ParseInt(v, 10, 64)
	if err != nil || ms <= 0 {
		return 0, fmt.Errorf("$%s=%q: want a positive number of milliseconds", name, v)
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// resolveOne checks server name's definition sc and resolves its
// transport, timeouts, elicitation, enabled and OAuth table.
func resolveOne(name string, sc ServerDef, where, dir string, getenv func(string) string) (Config, error) {
	c := Config{Name: name, Dir: dir}
	switch {
	case (sc.Command == "") == (sc.URL == ""):
		return c, fmt.Errorf("%s: mcp server %s: set either command or url", where, name)
	case sc.Transport != "" && sc.Transport != "http" && sc.Transport != "sse":
		return c, fmt.Errorf("%s: mcp server %s: transport %q: use http or sse", where, name, sc.Transport)
	case sc.Transport != "" && sc.URL == "":
		return c, fmt.Errorf("%s: mcp server %s: transport is for a url", where, name)
	case sc.Elicitation != "" && sc.Elicitation != "defaults" && sc.Elicitation != "decline":
		return c, fmt.Errorf("%s: mcp server %s: elicitation %q: use defaults or decline", where, name, sc.Elicitation)
	}
	c.URL = sc.URL // applyOAuth asks whether it is an HTTP server
	c.SSE = sc.Transport == "sse"
	c.ElicitDefaults = sc.Elicitation == "defaults"
	var err error
	if c.Timeout, err = parseDur(sc.Timeout); err != nil {
		return c, fmt.Errorf("%s: mcp server %s: timeout: %w", where, name, err)
	}
	if c.StartupTimeout, err = parseDur(sc.StartupTimeout); err != nil {
		return c, fmt.Errorf("%s: mcp server %s: startup_timeout: %w", where, name, err)
	}
	c.Disabled = sc.Enabled != nil && !*sc.Enabled
	if err := applyOAuth(&c, sc, where, getenv); err != nil {
		return c, err
	}
	return c, nil
}

// serverEnv is a stdio server's environment: this process's without the
// provider keys' variables (keyEnvs), then its env table with its
// references expanded (expand); nil for an HTTP server.
func serverEnv(sc ServerDef, keyEnvs []string, expand func(string) string) []string {
	if sc.Command == "" {
		return nil
	}
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !slices.Contains(keyEnvs, k) {
			env = append(env, kv)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(sc.Env)) {
		env = append(env, k+"="+expand(sc.Env[k]))
	}
	return env
}

func parseDur(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err == nil && d <= 0 {
		err = fmt.Errorf("must be positive, got %s", s)
	}
	return d, err
}

// OAuthDef is a server's [mcp.servers.NAME.oauth] table (see
// oauth.Config). client_secret, private_key_pem, idp_client_secret and
// idp_id_token take ${VAR} references, as headers do, so that secrets stay
// out of the file:
//
//	[mcp.servers.linear]
//	url = "https://mcp.linear.app/mcp"      # no table needed: dynamic registration
//
//	[mcp.servers.internal.oauth]             # a pre-registered client
//	client_id = "agent-cli"
//	client_secret = "${INTERNAL_MCP_SECRET}"
//	scopes = ["tools:read", "tools:call"]
//
//	[mcp.servers.batch.oauth]                # a machine client
//	grant_type = "client_credentials"
//	client_id = "batch"
//	private_key_pem = "${BATCH_KEY_PEM}"
//	signing_algorithm = "ES256"
type OAuthDef struct {
	ClientID          string   `toml:"client_id"`
	ClientSecret      string   `toml:"client_secret"`
	PrivateKeyPEM     string   `toml:"private_key_pem"`
	SigningAlgorithm  string   `toml:"signing_algorithm"`
	GrantType         string   `toml:"grant_type"`
	ClientMetadataURL string   `toml:"client_metadata_url"`
	Scopes            []string `toml:"scopes"`
	IdPIssuer         string   `toml:"idp_issuer"`
	IdPTokenEndpoint  string   `toml:"idp_token_endpoint"`
	IdPClientID       string   `toml:"idp_client_id"`
	IdPClientSecret   string   `toml:"idp_client_secret"`
	IdPIDToken        string   `toml:"idp_id_token"`
}

// resolve expands the ${VAR} references and checks the table. missing
// names the variables that are not set (the server is then skipped).
func (c *OAuthDef) resolve(getenv func(string) string) (*oauth.Config, []string, error) {
	var missing []string
	expand := func(v string) string {
		x, m := Expand(v, nil, getenv)
		missing = append(missing, m...)
		return x
	}
	out := &oauth.Config{ClientID: expand(c.ClientID), ClientSecret: expand(c.ClientSecret), PrivateKeyPEM: expand(c.PrivateKeyPEM),
		SigningAlgorithm: c.SigningAlgorithm, GrantType: c.GrantType, ClientMetadataURL: c.ClientMetadataURL, Scopes: c.Scopes,
		IdPIssuer: c.IdPIssuer, IdPTokenEndpoint: c.IdPTokenEndpoint, IdPClientID: expand(c.IdPClientID),
		IdPClientSecret: expand(c.IdPClientSecret), IdPIDToken: expand(c.IdPIDToken)}
	if len(missing) > 0 {
		return out, missing, nil
	}
	return out, nil, out.Validate()
}

// applyOAuth sets c's OAuth from the server's table: a usage error for a
// table that cannot work, the server skipped when a ${VAR} is not set.
func applyOAuth(c *Config, sc ServerDef, where string, getenv func(string) string) error {
	if sc.OAuth == nil {
		return nil
	}
	if c.URL == "" || c.SSE {
		return fmt.Errorf("%s: mcp server %s: oauth is for a streamable HTTP server (url)", where, c.Name)
	}
	oc, missing, err := sc.OAuth.resolve(getenv)
	if err != nil {
		return fmt.Errorf("%s: mcp server %s: oauth: %w", where, c.Name, err)
	}
	if len(missing) > 0 {
		c.Skipped = fmt.Sprintf("oauth needs $%s, which is not set", strings.Join(missing, ", $"))
	}
	c.OAuth = oc
	return nil
}

// ParseClaudeJSON parses Claude Code's MCP JSON (a project's .mcp.json,
// the SDK's --mcp-config): {"mcpServers": {NAME: {command, args, env} |
// {type: http|sse, url, headers}}}, each with an optional "timeout", one
// tool call's limit in milliseconds, as Claude Code reads it (a server's
// start is bounded by $MCP_TIMEOUT, as there). Its ${VAR} and
// ${VAR:-default} references are kept as written: Resolve expands them.
func ParseClaudeJSON(data []byte) (map[string]ServerDef, error) {
	var f struct {
		ServerDefs map[string]struct {
			Type    string            `json:"type"`
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			Env     map[string]string `json:"env"`
			URL     string            `json:"url"`
			Headers map[string]string `json:"headers"`
			// Timeout is Claude Code's per-server timeout of one tool
			// call, in milliseconds.
			Timeout *float64 `json:"timeout"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, err
	}
	out := map[string]ServerDef{}
	for name, s := range f.ServerDefs {
		c := ServerDef{Command: s.Command, Args: s.Args, Env: s.Env, URL: s.URL, Headers: s.Headers}
		if s.Timeout != nil {
			if *s.Timeout <= 0 {
				return nil, fmt.Errorf("mcpServers.%s.timeout: %v: want a positive number of milliseconds", name, *s.Timeout)
			}
			c.Timeout = (time.Duration(*s.Timeout * float64(time.Millisecond))).String()
		}
		if s.Type == "sse" || s.Type == InProcess {
			c.Transport = s.Type
		}
		out[name] = c
	}
	return out, nil
}

// InProcess is the type of the Claude Agent SDK's in-process MCP servers
// (createSdkMcpServer), which talk through the SDK's own process and
// which agent cannot reach.
const InProcess = "sdk"
