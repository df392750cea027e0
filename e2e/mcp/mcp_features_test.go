package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
	sa "github.com/agent-dev/agent/internal/scriptedanthropic"
)

// everythingDoc is a document server-everything offers as a resource.
func everythingDoc(t *testing.T, bin, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(bin, "..", "@modelcontextprotocol", "server-everything", "dist", "docs", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestMCPResourceMentionAndTool: @everything:URI in the prompt attaches the
// resource; the model, offered mcp_resource by name in pick_tools' index,
// picks it and reads another resource.
func TestMCPResourceMentionAndTool(t *testing.T) {
	t.Parallel()
	bin := e2e.MCPBin(t)
	dir := t.TempDir()
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "pick", Name: "pick_tools", Arguments: `{"names":["mcp_resource"]}`}),
		scripted.ToolCalls(scripted.Call{ID: "read", Name: "mcp_resource", Arguments: `{"server":"everything","uri":"demo://resource/static/document/features.md"}`}),
		scripted.Text("read both"),
	)
	uri := "demo://resource/static/document/architecture.md"
	res := e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "--config", e2e.MCPConfig(t, e2e.EverythingServer(bin)), "-p", "summarise @everything:"+uri+", please")})
	if res.Code != 0 || res.Stdout != "read both\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
	}
	reqs := srv.Requests()
	first := e2e.LastUserText(reqs[0])
	arch := strings.SplitN(everythingDoc(t, bin, "architecture.md"), "\n", 2)[0]
	if !strings.Contains(first, `<attached path="everything:`+uri+`">`) || !strings.Contains(first, arch) {
		t.Errorf("the mention did not attach the resource: %.400q", first)
	}
	if index := e2e.ToolNamed(reqs[0], "pick_tools").Function.Description; !strings.Contains(index, "mcp_resource") {
		t.Errorf("mcp_resource is not in pick_tools' index: %q", index)
	}
	features := strings.SplitN(everythingDoc(t, bin, "features.md"), "\n", 2)[0]
	if got := e2e.ToolResults(reqs[2])["read"]; !strings.Contains(got, features) {
		t.Errorf("mcp_resource's result: %.300q", got)
	}
}

// TestMCPPromptAsCommand: /mcp__everything__args-prompt Paris sends the
// server's prompt with its argument; without its required argument the
// prompt is not sent and the reason is said.
func TestMCPPromptAsCommand(t *testing.T) {
	t.Parallel()
	bin := e2e.MCPBin(t)
	dir := t.TempDir()
	cfg := e2e.MCPConfig(t, e2e.EverythingServer(bin))
	srv := scripted.New(t, scripted.Text("sunny"))
	res := e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "--config", cfg, "-p", "/mcp__everything__args-prompt Paris")})
	if res.Code != 0 || res.Stdout != "sunny\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
	}
	if got := e2e.LastUserText(srv.Requests()[0]); got != "What's weather in Paris?" {
		t.Errorf("the prompt sent: %q", got)
	}
	none := scripted.New(t)
	res = e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(none, "--config", cfg, "-p", "/mcp__everything__args-prompt")})
	if res.Code == 0 || !strings.Contains(res.Stderr, "the argument city is required") || len(none.Requests()) != 0 {
		t.Errorf("a prompt without its argument: exit %d, stderr %q, %d requests", res.Code, res.Stderr, len(none.Requests()))
	}
}

// TestMCPImageReachesTheModel: get-tiny-image's picture goes to an
// Anthropic model as an image block of the tool result.
func TestMCPImageReachesTheModel(t *testing.T) {
	t.Parallel()
	bin := e2e.MCPBin(t)
	dir := t.TempDir()
	srv := sa.New(t,
		sa.Answer(sa.ToolUse("toolu_1", "mcp__everything__get-tiny-image", `{}`)),
		sa.Answer(sa.Text("A tiny picture.")),
	)
	env := []string{"ANTHROPIC_API_KEY=sk-ant-e2e"}
	args := e2e.AnthropicArgs(srv, "--config", e2e.MCPConfig(t, e2e.EverythingServer(bin)), "--tools", "all", "-p", "show me the tiny image")
	res := e2e.Run(t, e2e.Invocation{Dir: dir, Env: env, Args: args})
	if res.Code != 0 || !strings.Contains(res.Stdout, "A tiny picture.") {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
	}
	reqs := srv.Requests()
	if got := e2e.ImageSources(t, reqs[1].Body); len(got) != 1 || got[0] == "" {
		t.Errorf("the tool's image reached the model as %d image blocks, want 1", len(got))
	}
}

// TestMCPProgressStreams: trigger-long-running-operation's progress
// notifications reach stream-json as tool_progress events while it runs.
func TestMCPProgressStreams(t *testing.T) {
	t.Parallel()
	bin := e2e.MCPBin(t)
	dir := t.TempDir()
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "op", Name: "mcp__everything__trigger-long-running-operation", Arguments: `{"duration":2,"steps":2}`}),
		scripted.Text("finished"),
	)
	args := e2e.AgentArgs(srv, "--config", e2e.MCPConfig(t, e2e.EverythingServer(bin)), "--tools", "all",
		"--output-format", "stream-json", "-p", "run the long operation")
	cmd, sc, stderr := e2e.StartAgent(t, dir, args)
	for {
		objs := e2e.WaitForEvent(t, sc, "tool_progress")
		last := objs[len(objs)-1]
		if last["id"] == "op" && last["text"] == "progress 1/2" {
			break
		}
	}
	objs := e2e.WaitForEvent(t, sc, "result")
	if code := e2e.ExitCodeOf(t, cmd); code != 0 {
		t.Fatalf("exit %d; stderr %s", code, stderr)
	}
	for _, o := range objs {
		if o["type"] == "tool_call_finished" && o["id"] == "op" && o["is_error"] == false {
			return
		}
	}
	t.Errorf("no successful tool_call_finished in %v", objs)
}
