package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// EverythingServer is the config of server-everything alone.
func EverythingServer(bin string) string {
	return fmt.Sprintf("[mcp.servers.everything]\ncommand = %q\nstartup_timeout = %q\n", filepath.Join(bin, "mcp-server-everything"), serverStart)
}

// The MCP servers the tests run, as .ci/run installs them: npm install
// --no-save --prefix out/mcp-servers PACKAGES. The reference servers;
// mcp-hub, a hub of servers whose tool list changes with its config file;
// and published servers that start without network or credentials (a
// placeholder key where one is asked for), for a .mcp.json of many
// (ManyServers).
var mcpPackages = []string{"@modelcontextprotocol/server-everything@2026.8.31", "@modelcontextprotocol/server-filesystem@2026.8.31", "mcp-hub@4.2.1",
	"@modelcontextprotocol/server-memory@2026.8.31", "@modelcontextprotocol/server-sequential-thinking@2026.8.31",
	"@modelcontextprotocol/server-github@2025.4.8", "@modelcontextprotocol/server-brave-search@0.6.2",
	"@modelcontextprotocol/server-postgres@0.6.2", "@upstash/context7-mcp@4.1.1", "@antv/mcp-server-chart@0.9.10"}

// mcpBinaries are the binaries mcpPackages install.
var mcpBinaries = []string{"mcp-server-everything", "mcp-server-filesystem", "mcp-hub",
	"mcp-server-memory", "mcp-server-sequential-thinking", "mcp-server-github", "mcp-server-brave-search",
	"mcp-server-postgres", "context7-mcp", "mcp-server-chart"}

// MCPBin returns the directory of the reference servers' binaries:
// $AGENT_E2E_MCP_BIN, else out/mcp-servers/node_modules/.bin of the
// repository. Without node the test is skipped, in CI it fails.
func MCPBin(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("node is missing in CI: the MCP tests need it (.ci/run installs the servers)")
		}
		t.Skip("node is not installed: the MCP end-to-end tests need it")
	}
	dir := os.Getenv("AGENT_E2E_MCP_BIN")
	if dir == "" {
		dir = filepath.Join(Root(t), "out", "mcp-servers", "node_modules", ".bin")
	}
	if !mcpInstalled(dir) && os.Getenv("AGENT_E2E_MCP_BIN") == "" {
		installOnce.Do(func() { installErr = installServers(filepath.Join(dir, "..", "..")) })
		if installErr != nil {
			msg := fmt.Sprintf("the reference MCP servers are not installed in %s and npm could not install them (%v): run npm install --no-save --prefix out/mcp-servers %s (.ci/run does)",
				dir, installErr, strings.Join(mcpPackages, " "))
			if os.Getenv("CI") != "" {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
	}
	if !mcpInstalled(dir) {
		t.Fatalf("the MCP servers %v are not all in %s", mcpBinaries, dir)
	}
	return dir
}

// mcpInstalled reports whether every binary of mcpBinaries is in dir.
func mcpInstalled(dir string) bool {
	for _, b := range mcpBinaries {
		if _, err := os.Stat(filepath.Join(dir, b)); err != nil {
			return false
		}
	}
	return true
}

var (
	installOnce sync.Once
	installErr  error
)

// installServers installs the reference servers under prefix, as .ci/run
// does, for a run of the tests that did not go through .ci/run.
func installServers(prefix string) error {
	args := append([]string{"install", "--no-save", "--no-audit", "--no-fund", "--prefix", prefix}, mcpPackages...)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "npm", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("npm %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

// MCPConfig writes a config file with servers (TOML tables) and returns
// its path.
func MCPConfig(t *testing.T, servers string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte(servers), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// ReferenceServers is the config of the two reference servers: everything,
// and fs serving dir.
func ReferenceServers(bin, dir string) string {
	return fmt.Sprintf(`
[mcp.servers.everything]
command = %q
startup_timeout = %q
[mcp.servers.fs]
command = %q
args = [%q]
startup_timeout = %q
`, filepath.Join(bin, "mcp-server-everything"), serverStart, filepath.Join(bin, "mcp-server-filesystem"), dir, serverStart)
}

// serverStart is the startup_timeout of the servers above. A headless run
// waits for its servers up to their startup timeout before its first
// request: a busy machine may start node in more than the default 10 s,
// and a test would then see the load (a server missing from the first
// request), not the agent. With HangLimit the run waits for the server to
// be ready, and the limit only detects a hang.
var serverStart = fmt.Sprintf("%ds", int(HangLimit.Seconds()))
