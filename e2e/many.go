package e2e

import (
	"encoding/json"
	"fmt"
	"path/filepath"
)

// ManyServers is the .mcp.json of nine published MCP servers (installed
// by MCPBin) that start without network or credentials, in dir: the
// reference ones, memory, sequential-thinking, github, brave-search (its
// key a ${VAR:-default} placeholder), postgres (which connects only when
// asked), context7 and chart. memory is started by a shell that first
// prints a banner on stdout, as some published servers do. It returns the
// file's text and the servers' names.
func ManyServers(bin, dir string) (mcpJSON string, names []string) {
	node := func(name string, args ...string) map[string]any {
		return map[string]any{"command": filepath.Join(bin, name), "args": args}
	}
	servers := map[string]any{
		"everything": node("mcp-server-everything"),
		"fs":         node("mcp-server-filesystem", dir),
		"memory": map[string]any{"command": "sh", "args": []string{"-c", "echo 'Knowledge Graph MCP Server starting (banner on stdout)'; exec \"$0\"", filepath.Join(bin, "mcp-server-memory")},
			"env": map[string]string{"MEMORY_FILE_PATH": "${MEMORY_FILE_PATH:-" + filepath.Join(dir, "memory.jsonl") + "}"}},
		"thinking": node("mcp-server-sequential-thinking"),
		"github":   node("mcp-server-github"),
		"brave": map[string]any{"command": filepath.Join(bin, "mcp-server-brave-search"),
			"env": map[string]string{"BRAVE_API_KEY": "${BRAVE_API_KEY:-not-a-key}"}},
		"postgres": node("mcp-server-postgres", "postgresql://127.0.0.1:1/none"),
		"context7": node("context7-mcp"),
		"chart":    node("mcp-server-chart"),
	}
	data, err := json.MarshalIndent(map[string]any{"mcpServers": servers}, "", "  ")
	if err != nil {
		panic(fmt.Sprint("ManyServers: ", err))
	}
	for n := range servers {
		names = append(names, n)
	}
	return string(data), names
}
