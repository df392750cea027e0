package cmd

import (
	"fmt"
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
	Servers map[string]mcpServerConfig `toml:"servers"`
}

type mcpServerConfig struct {
	Command        string            `toml:"command"`
	Args           []string          `toml:"args"`
	Env            map[string]string `toml:"env"`
	URL            string            `toml:"url"`
	Transport      string            `toml:"transport"`
	Headers        map[string]string `toml:"headers"`
	Enabled        *bool             `toml:"enabled"`
	Timeout        string            `toml:"timeout"`
	StartupTimeout string            `toml:"startup_timeout"`
}

var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// mcpServers resolves the [mcp.servers] tables into server configs,
// sorted by name. Header values expand ${VAR} from the environment; a
// stdio server gets this process's environment without the API key's
// variable, plus its env table, and runs in dir.
func mcpServers(servers map[string]mcpServerConfig, where, dir, apiKeyEnv string, getenv func(string) string) ([]mcp.Config, error) {
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
		}
		c.SSE = sc.Transport == "sse"
		var err error
		if c.Timeout, err = parseDur(sc.Timeout); err != nil {
			return nil, usagef("%s: mcp server %s: timeout: %w", where, name, err)
		}
		if c.StartupTimeout, err = parseDur(sc.StartupTimeout); err != nil {
			return nil, usagef("%s: mcp server %s: startup_timeout: %w", where, name, err)
		}
		c.Disabled = sc.Enabled != nil && !*sc.Enabled
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
				if k, _, _ := strings.Cut(kv, "="); k != apiKeyEnv {
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
