package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/tools/mcp"
	"github.com/agent-dev/agent/tools/shell"
)

// projectMCPFile is where a project defines its MCP servers, in the format
// Claude Code reads.
const projectMCPFile = ".mcp.json"

// projectServers reads dir's .mcp.json: {"mcpServers": {"name": {"command",
// "args", "env"} | {"type": "http" | "sse", "url", "headers"}}}. A missing
// file is no servers.
func projectServers(dir string) (map[string]mcp.ServerDef, error) {
	data, err := readProjectFile(filepath.Join(dir, projectMCPFile)) // a regular file, bounded: never a FIFO that holds the start
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	servers, err := mcp.ParseClaudeJSON(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", projectMCPFile, err)
	}
	return servers, nil
}

// projectServer is a server of the project's .mcp.json as written: its
// canonical definition (what trust is keyed on) and the lines that show the
// person everything it will run and receive.
type projectServer struct {
	def   string
	shown map[string]any
}

// describeProject returns the definition and display of c, a server of
// dir's .mcp.json, before any ${VAR} is expanded. The definition holds the
// command, its arguments, the environment (names and values as written),
// the URL and transport, and the header names; values that look like
// secrets are masked in the display.
func describeProject(dir string, c mcp.ServerDef) projectServer {
	headerNames := slices.Sorted(maps.Keys(c.Headers))
	def, _ := json.Marshal(struct {
		Command   string            `json:"command,omitempty"`
		Args      []string          `json:"args,omitempty"`
		Env       map[string]string `json:"env,omitempty"`
		URL       string            `json:"url,omitempty"`
		Transport string            `json:"transport,omitempty"`
		Headers   []string          `json:"headers,omitempty"`
	}{c.Command, c.Args, c.Env, c.URL, c.Transport, headerNames})
	shown := map[string]any{"from": filepath.Join(dir, projectMCPFile)}
	if c.Command != "" {
		shown["runs"] = shellJoin(append([]string{c.Command}, c.Args...))
		shown["in"] = dir
	}
	if c.URL != "" {
		shown["url"] = maskURL(c.URL)
	}
	var env []string
	for _, k := range slices.Sorted(maps.Keys(c.Env)) {
		env = append(env, k+"="+maskValue(k, c.Env[k]))
	}
	if len(env) > 0 {
		shown["env"] = env
	}
	var headers []string
	for _, k := range headerNames {
		headers = append(headers, k+": "+maskValue(k, c.Headers[k]))
	}
	if len(headers) > 0 {
		shown["headers"] = headers
	}
	return projectServer{def: string(def), shown: shown}
}

// maskValue shows a value of the environment or a header: ${VAR}
// references as written (the value comes from the person's environment at
// start), anything else masked when its name or value looks like a secret.
func maskValue(name, v string) string {
	const masked = "•••• (masked)"
	literal := strings.TrimSpace(mcp.VarRef.ReplaceAllString(v, ""))
	switch {
	case literal == "":
		return v
	case strings.Contains(v, "${"):
		if shell.SecretValue(literal) != "" {
			return masked
		}
		return v
	case shell.LooksSecret(name, v):
		return masked
	}
	return v
}

// maskURL hides the password of a URL with user info.
func maskURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// shellJoin quotes words for display as a shell would read them.
func shellJoin(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		if w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:@,+%") == "" {
			out[i] = w
		} else {
			out[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}

// askTrust is the gate of a project server in the interface: the
// remembered answer for this very definition, else the person's,
// remembered. The question shows everything the server will run and
// receive, and says when its definition changed since the last answer. ask
// puts the question (its text and the call showing what would run) to the
// person; answered false (dismissed, or agent stopping) skips the server
// this time only.
func askTrust(store *trustStore, dir string, name string, ps projectServer, ask func(ctx context.Context, call providers.ToolCall, question string) (allow, answered bool)) func(context.Context) (bool, string) {
	return func(ctx context.Context) (bool, string) {
		known := store.get(trustMCP, dir, name, ps.def)
		switch known {
		case trustAllowed:
			return true, ""
		case trustRefused:
			return false, "refused earlier for this repository (" + store.path + ")"
		}
		shown := maps.Clone(ps.shown)
		shown["server"] = name
		question := fmt.Sprintf("Start MCP server %s from %s? It runs this repository's code (answer remembered).", name, projectMCPFile)
		if known == trustChanged {
			shown["changed"] = "its definition changed since you last answered"
			question = fmt.Sprintf("MCP server %s in %s CHANGED since you last answered: start it as it is now? It runs this repository's code (answer remembered).", name, projectMCPFile)
		}
		var buf strings.Builder
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false) // the command as written: > stays >
		_ = enc.Encode(shown)
		args := strings.TrimSpace(buf.String())
		allow, answered := ask(ctx, providers.ToolCall{ID: "mcp-trust-" + name, Name: "start project MCP server " + name, Arguments: args}, question)
		switch {
		case ctx.Err() != nil:
			return false, "not asked: agent is stopping"
		case !answered:
			return false, "the question was dismissed; agent asks again at the next start"
		}
		_ = store.set(trustMCP, dir, name, ps.def, allow)
		if !allow {
			return false, "refused by the person"
		}
		return true, ""
	}
}

// gateProject decides the project servers of cfgs where nobody can be
// asked (headless, agent mcp list): with trustAll (--trust-project-mcp)
// every one starts; otherwise a server starts only when the person allowed
// this very definition before, and the others are marked skipped. It
// returns the lines that say which were skipped and why (those skipped
// already, for a provider key, included).
func gateProject(cfgs []mcp.Config, project map[string]projectServer, store *trustStore, dir string, trustAll bool) []string {
	var lines, untrusted, changed []string
	for i := range cfgs {
		ps, ok := project[cfgs[i].Name]
		if ok && cfgs[i].Skipped != "" {
			lines = append(lines, fmt.Sprintf("MCP server %s skipped: %s", cfgs[i].Name, cfgs[i].Skipped))
		}
		if !ok || trustAll || cfgs[i].Disabled || cfgs[i].Skipped != "" {
			continue
		}
		switch store.get(trustMCP, dir, cfgs[i].Name, ps.def) {
		case trustAllowed:
			continue
		case trustChanged:
			cfgs[i].Skipped = "its definition in the project's .mcp.json changed since it was trusted; run agent in the interface to be asked again, or --trust-project-mcp"
			changed = append(changed, cfgs[i].Name)
		default:
			cfgs[i].Skipped = "defined by the project's .mcp.json and not trusted; --trust-project-mcp starts it"
			untrusted = append(untrusted, cfgs[i].Name)
		}
	}
	slices.Sort(lines)
	slices.Sort(untrusted)
	slices.Sort(changed)
	if len(untrusted) > 0 {
		lines = append(lines, fmt.Sprintf("not starting the MCP servers of %s: %s (they run the repository's code; --trust-project-mcp starts them)", projectMCPFile, strings.Join(untrusted, ", ")))
	}
	if len(changed) > 0 {
		lines = append(lines, fmt.Sprintf("not starting the MCP servers of %s that changed since you trusted them: %s (run agent in the interface to be asked again, or --trust-project-mcp)", projectMCPFile, strings.Join(changed, ", ")))
	}
	return lines
}

// projectKeyRefs returns the provider key variables (keyEnvs) that a
// project server's command, args, env, url or headers name as ${VAR} (or
// ${VAR:-default}).
func projectKeyRefs(c mcp.ServerDef, keyEnvs []string) []string {
	values := append(append([]string{c.Command, c.URL}, c.Args...), slices.Collect(maps.Values(c.Env))...)
	var refs []string
	for _, v := range append(values, slices.Collect(maps.Values(c.Headers))...) {
		for _, n := range mcp.RefNames(v) {
			if slices.Contains(keyEnvs, n) && !slices.Contains(refs, n) {
				refs = append(refs, n)
			}
		}
	}
	slices.Sort(refs)
	return refs
}
