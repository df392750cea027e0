package protocols

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agent-dev/agent/e2e"
)

// npmClient is a protocol client package the end-to-end tests drive the
// agent through, as .ci/run installs it: npm install --no-save PREFIX PKG.
type npmClient struct {
	prefix string // under out/
	pkg    string // name@version
	entry  string // the module to import, relative to node_modules
	omit   bool   // --omit=optional
	once   sync.Once
	err    error
}

// The protocol clients: the official ACP SDK and the Claude Agent SDK
// (without its optional native binary, which the tests replace by agent).
var (
	acpClient = &npmClient{prefix: "acp-client", pkg: "@agentclientprotocol/sdk@2.4.0",
		entry: "@agentclientprotocol/sdk/dist/v1/stable/acp.js"}
	claudeSDK = &npmClient{prefix: "claude-agent-sdk", pkg: "@anthropic-ai/claude-agent-sdk@0.3.328",
		entry: "@anthropic-ai/claude-agent-sdk/sdk.mjs", omit: true}
)

// module returns the absolute path of c's entry module, installing the
// package when it is missing. Without node the test is skipped, in CI it
// fails.
func (c *npmClient) module(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("node is missing in CI: the protocol tests need it")
		}
		t.Skip("node is not installed: the protocol end-to-end tests need it")
	}
	prefix := filepath.Join(e2e.Root(t), "out", c.prefix)
	path := filepath.Join(prefix, "node_modules", c.entry)
	if _, err := os.Stat(path); err != nil {
		c.once.Do(func() {
			args := []string{"install", "--no-save", "--no-audit", "--no-fund", "--prefix", prefix}
			if c.omit {
				args = append(args, "--omit=optional")
			}
			out, err := exec.Command("npm", append(args, c.pkg)...).CombinedOutput()
			if err != nil {
				c.err = fmt.Errorf("npm %s %s: %v: %s", strings.Join(args, " "), c.pkg, err, out)
			}
		})
		if c.err != nil {
			if os.Getenv("CI") != "" {
				t.Fatal(c.err)
			}
			t.Skip(c.err.Error())
		}
	}
	return path
}

// runNode runs a test script under node in its own session with env added
// to the agent's minimal environment, and waits for every process of the
// session (the script and the agent it starts) to exit. It returns the
// script's stdout lines as objects and its stderr.
func runNode(t *testing.T, dir string, env []string, script string, args ...string) ([]map[string]any, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), e2e.HangLimit)
	defer cancel()
	abs, _ := filepath.Abs(filepath.Join("testdata", script))
	cmd := exec.CommandContext(ctx, "node", append([]string{abs}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(e2e.BaseEnv(t), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	e2e.OwnSession(cmd)
	err := cmd.Run()
	if cmd.Process != nil {
		e2e.WaitExited(t, nil, cmd.Process.Pid)
	}
	if ctx.Err() != nil {
		t.Fatalf("node %s hung for %v; stdout:\n%s\nstderr:\n%s", script, e2e.HangLimit, stdout.String(), stderr.String())
	}
	if err != nil {
		t.Fatalf("node %s: %v; stdout:\n%s\nstderr:\n%s", script, err, stdout.String(), stderr.String())
	}
	var objs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		if line == "" {
			continue
		}
		var obj map[string]any
		if err := json.Unmarshal([]byte(line), &obj); err != nil {
			t.Fatalf("%s printed a line that is not JSON: %q; stderr:\n%s", script, line, stderr.String())
		}
		objs = append(objs, obj)
	}
	return objs, stderr.String()
}

// jsonEnv is NAME=the JSON of v.
func jsonEnv(name string, v any) string {
	b, _ := json.Marshal(v)
	return name + "=" + string(b)
}
