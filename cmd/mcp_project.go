package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/tools/mcp"
)

// projectMCPFile is where a project defines its MCP servers, in the format
// Claude Code reads.
const projectMCPFile = ".mcp.json"

// projectServers reads dir's .mcp.json: {"mcpServers": {"name": {"command",
// "args", "env"} | {"type": "http" | "sse", "url", "headers"}}}. A missing
// file is no servers.
func projectServers(dir string) (map[string]mcpServerConfig, error) {
	data, err := os.ReadFile(filepath.Join(dir, projectMCPFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var f struct {
		MCPServers map[string]struct {
			Type    string            `json:"type"`
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			Env     map[string]string `json:"env"`
			URL     string            `json:"url"`
			Headers map[string]string `json:"headers"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", projectMCPFile, err)
	}
	out := map[string]mcpServerConfig{}
	for name, s := range f.MCPServers {
		c := mcpServerConfig{Command: s.Command, Args: s.Args, Env: s.Env, URL: s.URL, Headers: s.Headers}
		if s.Type == "sse" {
			c.Transport = "sse"
		}
		out[name] = c
	}
	return out, nil
}

// trustStore remembers, in the data directory, which project servers the
// person allowed or refused, per working directory and server.
type trustStore struct {
	path string
	mu   sync.Mutex
}

func (t *trustStore) load() map[string]bool {
	m := map[string]bool{}
	if data, err := os.ReadFile(t.path); err == nil {
		_ = json.Unmarshal(data, &m)
	}
	return m
}

// get returns the remembered answer for server of dir.
func (t *trustStore) get(dir, server string) (answer, known bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	answer, known = t.load()[dir+"\x00"+server]
	return answer, known
}

// set remembers the answer for server of dir.
func (t *trustStore) set(dir, server string, answer bool) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	m := t.load()
	m[dir+"\x00"+server] = answer
	data, _ := json.MarshalIndent(m, "", "  ")
	if err := os.MkdirAll(filepath.Dir(t.path), 0o700); err != nil {
		return err
	}
	return os.WriteFile(t.path, data, 0o600)
}

// askTrust is the gate of a project server in the interface: the
// remembered answer, else the person's, remembered. ask puts the question
// (its text and the call showing what would run) to the person; answered
// false (dismissed, or agent stopping) skips the server this time only.
func askTrust(store *trustStore, dir string, c mcp.Config, ask func(ctx context.Context, call providers.ToolCall, question string) (allow, answered bool)) func(context.Context) (bool, string) {
	return func(ctx context.Context) (bool, string) {
		if ok, known := store.get(dir, c.Name); known {
			if ok {
				return true, ""
			}
			return false, "refused earlier for this repository (" + store.path + ")"
		}
		what := strings.Join(append([]string{c.Command}, c.Args...), " ")
		if c.URL != "" {
			what = c.URL
		}
		args, _ := json.Marshal(map[string]string{"server": c.Name, "from": filepath.Join(dir, projectMCPFile), "runs": what})
		question := fmt.Sprintf("Start MCP server %s from %s? It runs this repository's code (answer remembered).", c.Name, projectMCPFile)
		allow, answered := ask(ctx, providers.ToolCall{ID: "mcp-trust-" + c.Name, Name: "start project MCP server " + c.Name, Arguments: string(args)}, question)
		switch {
		case ctx.Err() != nil:
			return false, "not asked: agent is stopping"
		case !answered:
			return false, "the question was dismissed; agent asks again at the next start"
		}
		_ = store.set(dir, c.Name, allow)
		if !allow {
			return false, "refused by the person"
		}
		return true, ""
	}
}

// skipProject marks the project servers of cfgs skipped (a headless run
// without --trust-project-mcp) and returns their names.
func skipProject(cfgs []mcp.Config, project map[string]bool) []string {
	var skipped []string
	for i := range cfgs {
		if project[cfgs[i].Name] && !cfgs[i].Disabled && cfgs[i].Skipped == "" {
			cfgs[i].Skipped = "defined by the project's .mcp.json; --trust-project-mcp starts it"
			skipped = append(skipped, cfgs[i].Name)
		}
	}
	slices.Sort(skipped)
	return skipped
}
