package host

import (
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/agent-dev/agent/tools/mcp"
)

// mcpConfig is the [mcp] table:
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
type mcpConfig struct {
	Servers map[string]MCPServer `toml:"servers"`
}

type MCPServer struct {
	Command        string            `toml:"command"`
	Args           []string          `toml:"args"`
	Env            map[string]string `toml:"env"`
	URL            string            `toml:"url"`
	Transport      string            `toml:"transport"`
	Headers        map[string]string `toml:"headers"`
	Enabled        *bool             `toml:"enabled"`
	Timeout        string            `toml:"timeout"`
	StartupTimeout string            `toml:"startup_timeout"`
	OAuth          *mcpOAuthConfig   `toml:"oauth"`
	// Elicitation "defaults" accepts the server's forms with their
	// defaults where nobody can be asked (headless); "" declines them.
	Elicitation string `toml:"elicitation"`
}

var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// mcpServers resolves the [mcp.servers] tables into server configs,
// sorted by name. Header values expand ${VAR} from the environment; a
// stdio server gets this process's environment without the provider keys'
// variables (keyEnvs), plus its env table, and runs in dir.
func mcpServers(servers map[string]MCPServer, where, dir string, keyEnvs []string, getenv func(string) string) ([]mcp.Config, error) {
	names := make([]string, 0, len(servers))
	for n := range servers {
		names = append(names, n)
	}
	slices.Sort(names)
	var out []mcp.Config
	for _, name := range names {
		sc := servers[name]
		c := mcp.Config{Name: name, Command: sc.Command, Args: sc.Args, URL: sc.URL, Dir: dir}
		switch {
		case (sc.Command == "") == (sc.URL == ""):
			return nil, usagef("%s: mcp server %s: set either command or url", where, name)
		case sc.Transport != "" && sc.Transport != "http" && sc.Transport != "sse":
			return nil, usagef("%s: mcp server %s: transport %q: use http or sse", where, name, sc.Transport)
		case sc.Transport != "" && sc.URL == "":
			return nil, usagef("%s: mcp server %s: transport is for a url", where, name)
		case sc.Elicitation != "" && sc.Elicitation != "defaults" && sc.Elicitation != "decline":
			return nil, usagef("%s: mcp server %s: elicitation %q: use defaults or decline", where, name, sc.Elicitation)
		}
		c.SSE = sc.Transport == "sse"
		c.ElicitDefaults = sc.Elicitation == "defaults"
		var err error
		if c.Timeout, err = parseDur(sc.Timeout); err != nil {
			return nil, usagef("%s: mcp server %s: timeout: %w", where, name, err)
		}
		if c.StartupTimeout, err = parseDur(sc.StartupTimeout); err != nil {
			return nil, usagef("%s: mcp server %s: startup_timeout: %w", where, name, err)
		}
		c.Disabled = sc.Enabled != nil && !*sc.Enabled
		if err := applyOAuth(&c, sc, where, getenv); err != nil {
			return nil, err
		}
		if len(sc.Headers) > 0 {
			c.Headers = map[string]string{}
			for k, v := range sc.Headers {
				var missing []string
				c.Headers[k] = envRef.ReplaceAllStringFunc(v, func(ref string) string {
					n := envRef.FindStringSubmatch(ref)[1]
					val := getenv(n)
					if val == "" {
						missing = append(missing, n)
					}
					return val
				})
				if len(missing) > 0 {
					c.Skipped = fmt.Sprintf("header %s needs $%s, which is not set", k, strings.Join(missing, ", $"))
				}
			}
		}
		if sc.Command != "" {
			for _, kv := range os.Environ() {
				if k, _, _ := strings.Cut(kv, "="); !slices.Contains(keyEnvs, k) {
					c.Env = append(c.Env, kv)
				}
			}
			for k, v := range sc.Env {
				c.Env = append(c.Env, k+"="+envRef.ReplaceAllStringFunc(v, func(ref string) string { return getenv(envRef.FindStringSubmatch(ref)[1]) }))
			}
		}
		out = append(out, c)
	}
	return out, nil
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

// resolveMCP joins the user's [mcp.servers] and the project's .mcp.json
// (the user's own config wins a name both define) and resolves them for
// dir. It returns the servers and, for those of the project, what the
// person trusts (see describeProject). A project server whose env or
// headers name a provider key (keyEnvs) is skipped: the key is never
// expanded for a repository's server.
func resolveMCP(user map[string]MCPServer, dir string, keyEnvs []string, getenv func(string) string) ([]mcp.Config, map[string]projectServer, error) {
	fromProject, err := projectServers(dir)
	if err != nil {
		return nil, nil, usagef("%w", err)
	}
	servers, project := maps.Clone(user), map[string]projectServer{}
	if servers == nil {
		servers = map[string]MCPServer{}
	}
	keyRefs := map[string][]string{}
	for name, c := range fromProject {
		if _, ok := servers[name]; ok {
			continue
		}
		project[name] = describeProject(dir, c)
		if refs := projectKeyRefs(c, keyEnvs); len(refs) > 0 {
			keyRefs[name] = refs
			c.Env, c.Headers = withoutRefs(c.Env, refs), withoutRefs(c.Headers, refs)
		}
		servers[name] = c
	}
	cfgs, err := mcpServers(servers, "MCP servers", dir, keyEnvs, getenv)
	if err != nil {
		return nil, nil, err
	}
	for i := range cfgs {
		if refs := keyRefs[cfgs[i].Name]; len(refs) > 0 {
			cfgs[i].Skipped = fmt.Sprintf("the project's .mcp.json gives it the provider key $%s, which a repository's server never gets", strings.Join(refs, ", $"))
		}
	}
	return cfgs, project, nil
}

// withoutRefs returns m with every ${VAR} of refs replaced by nothing.
func withoutRefs(m map[string]string, refs []string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = envRef.ReplaceAllStringFunc(v, func(ref string) string {
			if slices.Contains(refs, envRef.FindStringSubmatch(ref)[1]) {
				return ""
			}
			return ref
		})
	}
	return out
}
