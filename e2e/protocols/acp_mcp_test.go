package protocols

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// TestACPSessionMCPServers: the mcpServers session/new names (a stdio
// server, the reference "everything" server) are started like configured
// ones: the model gets their tools and its call of one runs.
func TestACPSessionMCPServers(t *testing.T) {
	t.Parallel()
	bin := e2e.MCPBin(t)
	sdk := acpClient.module(t)
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "s1", Name: "mcp__everything__get-sum", Arguments: `{"a":2,"b":40}`}),
		scripted.Text("It is 42."),
	)
	dir := t.TempDir()
	servers := []map[string]any{{"name": "everything", "command": filepath.Join(bin, "mcp-server-everything"), "args": []string{}, "env": []any{}}}
	env := []string{"ACP_SDK=" + sdk, "AGENT_BIN=" + e2e.Agent(t), "AGENT_CWD=" + dir,
		jsonEnv("AGENT_ARGS", append([]string{"acp"}, e2e.AgentArgs(srv, "--db", filepath.Join(t.TempDir(), "a.db"), "--tools", "all")...)),
		jsonEnv("AGENT_MCP", servers), jsonEnv("AGENT_ANSWERS", []string{"allow_once"})}
	objs, stderr := runNode(t, dir, env, "acp/client.mjs", "mcp")
	for _, o := range objs {
		if o["step"] == "error" {
			t.Fatalf("client error %v; stderr:\n%s", o, stderr)
		}
	}
	reqs := srv.Requests()
	if len(reqs) == 0 || e2e.ToolNamed(reqs[0], "mcp__everything__get-sum") == nil {
		t.Fatalf("the first request lacks the client's server's tools (%d requests); stderr:\n%s", len(reqs), stderr)
	}
	add := step(t, objs, "add")
	var result string
	for _, u := range updatesOf(add, "tool_call_update") {
		if u["toolCallId"] == "s1" && u["status"] == "completed" {
			result = toJSON(u["content"])
		}
	}
	if add["stopReason"] != "end_turn" || !strings.Contains(result, "42") {
		t.Errorf("add: stop %v, the call's result %q; updates %s; stderr:\n%s", add["stopReason"], result, toJSON(add["updates"]), stderr)
	}
}
