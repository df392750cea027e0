// Package e2e runs the agent as a separate process (this test binary, which
// runs the agent's command line as main.go does; see TestMain) against the
// scripted OpenAI-compatible server on a temporary copy of this repository's
// source tree, and checks what a person or a script would see: stdout,
// stderr, the exit code, and the requests the server received.
package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	agentcmd "github.com/agent-dev/agent/cmd"
	"github.com/agent-dev/agent/internal/scripted"
)

// binary is the agent the tests run: this test binary itself, which acts as
// the agent when started with asAgent=1 in its environment (see TestMain),
// or the binary AGENT_E2E_BINARY names (to measure another build; main's
// bench/economy.sh does).
var binary string

// asAgent is the environment variable that makes this test binary the agent.
const asAgent = "AGENT_E2E_AS_AGENT"

// TestMain runs the tests, or, when the process was started as the agent
// (asAgent=1), runs the agent's command line exactly as main.go does.
// Without -race the tests start this binary (nothing is compiled twice);
// under -race they start the agent buildAgent builds without the race
// detector (see buildAgent for why), unless AGENT_E2E_RACE=1. The sandbox
// helper (`__agent-sandbox`) answers from its package's init, as in the
// real binary.
func TestMain(m *testing.M) {
	if os.Getenv(asAgent) == "1" {
		os.Exit(agentcmd.Execute())
	}
	if b := os.Getenv("AGENT_E2E_BINARY"); b != "" {
		binary = b
		os.Exit(m.Run())
	}
	if raceDetector && os.Getenv("AGENT_E2E_RACE") != "1" {
		os.Exit(runWithBuild(m))
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "finding the test binary:", err)
		os.Exit(1)
	}
	binary = exe
	os.Exit(m.Run())
}

// runWithBuild runs the tests against the agent buildAgent builds in a
// temporary directory, removed after the tests.
func runWithBuild(m *testing.M) int {
	dir, err := os.MkdirTemp("", "agent-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	if binary, err = buildAgent(dir); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: building the agent:", err)
		return 1
	}
	return m.Run()
}

// sourceTree copies this repository's Go sources and docs (not .git) into a
// temporary directory and returns it.
func sourceTree(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	src, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			if d.Name() == ".git" || d.Name() == "out" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// result is what one run of the binary produced.
type result struct {
	stdout, stderr string
	code           int
}

// invocation describes one run of the binary.
type invocation struct {
	dir   string
	stdin io.Reader // nil: /dev/null
	env   []string  // added to a minimal environment
	args  []string
	// watch, when not nil, is given stderr as it is written, too.
	watch io.Writer
}

// baseEnv is a minimal environment: no config file, no API key, no model
// unless a test adds them; and what makes this binary the agent.
func baseEnv(t *testing.T) []string {
	home := t.TempDir()
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, "config"),
		asAgent + "=1",
		// A binary built with -race sleeps a second at exit unless told not to.
		"GORACE=atexit_sleep_ms=0"}
}

// hangLimit bounds a run of the binary, or a wait for a screen or an
// event; reaching it means the agent hung. It is generous: the tests run in
// parallel, under -race, on machines busy with other work.
const hangLimit = 3 * time.Minute

func run(t *testing.T, inv invocation) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, inv.args...)
	cmd.Dir = inv.dir
	cmd.Env = append(baseEnv(t), inv.env...)
	cmd.Stdin = inv.stdin
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if inv.watch != nil {
		cmd.Stderr = io.MultiWriter(&stderr, inv.watch)
	}
	ownSession(cmd)
	err := cmd.Run()
	if cmd.Process != nil {
		// What the agent started (MCP servers, commands) may outlive
		// it by a moment; the test's directories are removed after.
		waitExited(t, nil, cmd.Process.Pid)
	}
	if ctx.Err() != nil {
		t.Fatalf("agent %v hung for %v; stderr:\n%s", inv.args, hangLimit, stderr.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running agent: %v", err)
	}
	return result{stdout.String(), stderr.String(), code}
}

// agentArgs are the flags that point the agent at srv.
func agentArgs(srv *scripted.Server, args ...string) []string {
	return append([]string{"--base-url", srv.URL(), "--model", "scripted-model", "--max-retries", "0"}, args...)
}

// toolNamed returns the tool definition called name in a request, or nil.
func toolNamed(req scripted.Request, name string) *scripted.Tool {
	for i, tool := range req.Chat.Tools {
		if tool.Function.Name == name {
			return &req.Chat.Tools[i]
		}
	}
	return nil
}

// hasProperties reports whether a tool definition carries a parameter
// schema with properties (a full schema rather than a brief).
func hasProperties(tool *scripted.Tool) bool {
	var schema struct {
		Properties map[string]any `json:"properties"`
	}
	return tool != nil && json.Unmarshal(tool.Function.Parameters, &schema) == nil && len(schema.Properties) > 0
}

// toolResults maps tool_call_id to the content of the tool messages of a
// request.
func toolResults(req scripted.Request) map[string]string {
	out := map[string]string{}
	for _, m := range req.Chat.Messages {
		if m.Role == "tool" {
			out[m.ToolCallID] = m.Text()
		}
	}
	return out
}

// assertCallsAnswered checks that every tool call of every assistant message
// in every request is answered by a tool message with its id.
func assertCallsAnswered(t *testing.T, reqs []scripted.Request) {
	t.Helper()
	for i, req := range reqs {
		results := toolResults(req)
		for _, m := range req.Chat.Messages {
			for _, c := range m.ToolCalls {
				if _, ok := results[c.ID]; !ok {
					t.Errorf("request %d: tool call %s (%s) has no tool result", i+1, c.ID, c.Function.Name)
				}
			}
		}
	}
}

// lastUserText is the text of the last user message of a request.
func lastUserText(req scripted.Request) string {
	for i := len(req.Chat.Messages) - 1; i >= 0; i-- {
		if req.Chat.Messages[i].Role == "user" {
			return req.Chat.Messages[i].Text()
		}
	}
	return ""
}

// jsonLines decodes stdout of stream-json into objects.
func jsonLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var objs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var obj map[string]any
		if err := json.Unmarshal([]byte(line), &obj); err != nil {
			t.Fatalf("stream-json line is not JSON: %q: %v", line, err)
		}
		objs = append(objs, obj)
	}
	return objs
}
