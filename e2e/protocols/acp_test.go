package protocols

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// step returns the object of objs whose step is name, failing without one.
func step(t *testing.T, objs []map[string]any, name string) map[string]any {
	t.Helper()
	for _, o := range objs {
		if o["step"] == name {
			return o
		}
	}
	t.Fatalf("no %q step in %v", name, objs)
	return nil
}

// updatesOf returns the updates of a step of the given kind.
func updatesOf(o map[string]any, kind string) []map[string]any {
	var out []map[string]any
	for _, u := range o["updates"].([]any) {
		if m := u.(map[string]any); m["sessionUpdate"] == kind {
			out = append(out, m)
		}
	}
	return out
}

// chunkText joins the text of message chunks.
func chunkText(chunks []map[string]any) string {
	var b strings.Builder
	for _, c := range chunks {
		b.WriteString(c["content"].(map[string]any)["text"].(string))
	}
	return b.String()
}

// TestACPSession drives `agent acp` through the official ACP client SDK:
// initialize, a new session, a prompt answered in chunks, two bash calls
// whose permission requests are answered reject_once and allow_once, a
// prompt cancelled on its first chunk; then a second agent loads the
// stored session and replays it.
func TestACPSession(t *testing.T) {
	t.Parallel()
	sdk := acpClient.module(t)
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	srv := scripted.New(t,
		scripted.Text("Hello from the model, in pieces.").WithPieceSize(5),
		scripted.ToolCalls(scripted.Call{ID: "c1", Name: "bash", Arguments: `{"command":"echo one > one.txt"}`}),
		scripted.ToolCalls(scripted.Call{ID: "c2", Name: "bash", Arguments: `{"command":"echo two > two.txt"}`}),
		scripted.Text("Ran the second one."),
		scripted.Text("This answer never ends").WithPieceSize(4).HoldAfterEvents(2, hold),
	)
	// A trusted project's hooks run in ACP's sessions as in -p: UserPromptSubmit's context reaches the model.
	dir := e2e.ExtProject(t, map[string]string{".claude/settings.json": `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo 'The deploy branch is release-7.'"}]}]}}`})
	db := filepath.Join(t.TempDir(), "a.db")
	env := []string{"ACP_SDK=" + sdk, "AGENT_BIN=" + e2e.Agent(t), "AGENT_CWD=" + dir,
		jsonEnv("AGENT_ARGS", append([]string{"acp"}, e2e.AgentArgs(srv, "--db", db, "--tools", "all", "--trust-project")...)),
		jsonEnv("AGENT_ANSWERS", []string{"reject_once", "allow_once"})}
	objs, stderr := runNode(t, dir, env, "acp/client.mjs", "session")
	if reqs := srv.Requests(); len(reqs) == 0 || !strings.Contains(e2e.LastUserText(reqs[0]), "The deploy branch is release-7.") {
		t.Errorf("the first prompt did not reach the model with the UserPromptSubmit hook's context (%d requests); stderr:\n%s", len(reqs), stderr)
	}
	if e := step(t, objs, "exit"); e["code"] != 0.0 {
		t.Errorf("agent exit %v; stderr:\n%s", e, stderr)
	}
	for _, o := range objs {
		if o["step"] == "error" {
			t.Fatalf("client error %v; stderr:\n%s", o, stderr)
		}
	}

	init := step(t, objs, "initialize")["response"].(map[string]any)
	caps := init["agentCapabilities"].(map[string]any)
	prompts, _ := caps["promptCapabilities"].(map[string]any)
	mcps, _ := caps["mcpCapabilities"].(map[string]any)
	if init["protocolVersion"] != 1.0 || caps["loadSession"] != true || mcps["http"] != true || mcps["sse"] != true ||
		prompts["image"] != true || prompts["embeddedContext"] != true {
		t.Errorf("initialize: %v", init)
	}
	// Keys come from the environment and the configuration: no
	// authentication method, as an empty array (the field is required).
	if auth, ok := init["authMethods"].([]any); !ok || len(auth) != 0 {
		t.Errorf("initialize's authMethods %#v, want []", init["authMethods"])
	}
	newResp := step(t, objs, "new")["response"].(map[string]any)
	id, _ := newResp["sessionId"].(string)
	if id == "" || newResp["modes"].(map[string]any)["currentModeId"] != "ask" {
		t.Errorf("session/new: %v", newResp)
	}

	hello := step(t, objs, "hello")
	chunks := updatesOf(hello, "agent_message_chunk")
	if hello["stopReason"] != "end_turn" || len(chunks) < 3 || chunkText(chunks) != "Hello from the model, in pieces." {
		t.Errorf("hello: stop %v, %d chunks %q", hello["stopReason"], len(chunks), chunkText(chunks))
	}

	run := step(t, objs, "run")
	if run["stopReason"] != "end_turn" {
		t.Errorf("run: stop %v", run["stopReason"])
	}
	var perms []map[string]any
	for _, o := range objs {
		if o["step"] == "permission" {
			perms = append(perms, o)
		}
	}
	if len(perms) != 2 {
		t.Fatalf("permission requests: %v", perms)
	}
	for i, p := range perms {
		tc := p["toolCall"].(map[string]any)
		if tc["kind"] != "execute" || !strings.Contains(tc["title"].(string), []string{"one.txt", "two.txt"}[i]) ||
			strings.Join(toStrings(p["options"]), ",") != "allow_once,allow_always,reject_once,reject_always" {
			t.Errorf("permission %d: %v", i, p)
		}
	}
	calls := updatesOf(run, "tool_call")
	finished := updatesOf(run, "tool_call_update")
	if len(calls) != 2 || calls[0]["kind"] != "execute" || calls[0]["rawInput"].(map[string]any)["command"] != "echo one > one.txt" {
		t.Errorf("tool_call updates: %v", calls)
	}
	statuses := map[string]string{}
	for _, u := range finished {
		if s, ok := u["status"].(string); ok {
			statuses[u["toolCallId"].(string)] = s
		}
	}
	if statuses["c1"] != "failed" || statuses["c2"] != "completed" {
		t.Errorf("statuses %v (want c1 failed: rejected; c2 completed)", statuses)
	}
	if _, err := os.Stat(filepath.Join(dir, "one.txt")); err == nil {
		t.Error("the rejected command ran")
	}
	if data, err := os.ReadFile(filepath.Join(dir, "two.txt")); err != nil || string(data) != "two\n" {
		t.Errorf("the allowed command's file: %q, %v", data, err)
	}

	if wait := step(t, objs, "wait"); wait["stopReason"] != "cancelled" {
		t.Errorf("cancelled prompt answered %v", wait["stopReason"])
	}

	// A second agent loads the stored session and replays it.
	env = append(env, "AGENT_SESSION="+id)
	objs, stderr = runNode(t, dir, env, "acp/client.mjs", "load")
	load := step(t, objs, "load")
	if load["response"] == nil {
		t.Fatalf("load: %v; stderr:\n%s", objs, stderr)
	}
	users := chunkText(updatesOf(load, "user_message_chunk"))
	agents := chunkText(updatesOf(load, "agent_message_chunk"))
	if !strings.Contains(users, "hello") || !strings.Contains(users, "run") ||
		!strings.Contains(agents, "Hello from the model, in pieces.") || !strings.Contains(agents, "Ran the second one.") {
		t.Errorf("replay: user %q, agent %q", users, agents)
	}
	if replayed := updatesOf(load, "tool_call"); len(replayed) != 2 || replayed[1]["kind"] != "execute" {
		t.Errorf("replayed calls: %v", replayed)
	}
}

func toStrings(v any) []string {
	var out []string
	for _, s := range v.([]any) {
		out = append(out, s.(string))
	}
	return out
}

// TestProtocolClientOnStdinIsNamed: an editor that starts plain `agent`
// and writes ACP's initialize, keeping its pipe open, is told at once that
// `agent acp` is what it wants; nothing goes to the model.
func TestProtocolClientOnStdinIsNamed(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close() // the pipe stays open until the agent has exited
	if _, err := w.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}` + "\n"); err != nil {
		t.Fatal(err)
	}
	res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Stdin: r, Args: e2e.AgentArgs(srv)})
	r.Close()
	if res.Code == 0 || !strings.Contains(res.Stderr, "agent acp") || !strings.Contains(res.Stderr, `"initialize"`) {
		t.Errorf("exit %d, stderr %q: want a failure naming agent acp", res.Code, res.Stderr)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("the model got %d requests", n)
	}
}

// TestACPFileSystem: with a client that declares fs capabilities, the
// editing tools read the editor's buffer and write through it, not the
// disk; a path outside the session's cwd never reaches the client.
func TestACPFileSystem(t *testing.T) {
	t.Parallel()
	sdk := acpClient.module(t)
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "r", Name: "read_file", Arguments: `{"path":"a.txt"}`}),
		scripted.ToolCalls(scripted.Call{ID: "w", Name: "write_file", Arguments: `{"path":"a.txt","content":"rewritten\n"}`},
			scripted.Call{ID: "o", Name: "write_file", Arguments: `{"path":"../outside.txt","content":"x\n"}`}),
		scripted.Text("Done."),
	)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("on disk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"ACP_SDK=" + sdk, "AGENT_BIN=" + e2e.Agent(t), "AGENT_CWD=" + dir, "AGENT_BUFFER=unsaved buffer text\n",
		jsonEnv("AGENT_ARGS", append([]string{"acp"}, e2e.AgentArgs(srv, "--db", filepath.Join(t.TempDir(), "a.db"), "--tools", "all", "--permission-mode", "auto")...))}
	objs, stderr := runNode(t, dir, env, "acp/client.mjs", "fs")
	edit := step(t, objs, "edit")
	if edit["stopReason"] != "end_turn" {
		t.Fatalf("edit: %v; stderr:\n%s", objs, stderr)
	}
	var fsCalls []string
	for _, o := range objs {
		if o["step"] == "fs" {
			fsCalls = append(fsCalls, o["method"].(string)+" "+o["path"].(string))
			if o["method"] == "write" && o["content"] != "rewritten\n" {
				t.Errorf("written content %q", o["content"])
			}
		}
	}
	want := filepath.Join(dir, "a.txt")
	writes := 0
	for _, c := range fsCalls {
		if c == "write "+want {
			writes++
		}
	}
	if len(fsCalls) < 3 || fsCalls[0] != "read "+want || writes != 1 {
		t.Errorf("fs requests %v: want reads of %s, then one write", fsCalls, want)
	}
	for _, c := range fsCalls {
		if strings.Contains(c, "outside") {
			t.Errorf("a path outside the cwd reached the client: %s", c)
		}
	}
	// A file tool's tool_call names its file in locations, absolute.
	for _, c := range updatesOf(edit, "tool_call") {
		if c["toolCallId"] != "r" && c["toolCallId"] != "w" {
			continue
		}
		locs, _ := c["locations"].([]any)
		if len(locs) != 1 || locs[0].(map[string]any)["path"] != want {
			t.Errorf("tool_call %v (%v): locations %v, want [{path: %s}]", c["toolCallId"], c["kind"], c["locations"], want)
		}
	}
	if calls := updatesOf(edit, "tool_call"); len(calls) < 2 || calls[0]["kind"] != "read" || calls[1]["kind"] != "edit" {
		t.Errorf("tool_call kinds: %v", calls)
	}
	var readResult string
	for _, u := range updatesOf(edit, "tool_call_update") {
		if u["toolCallId"] == "r" {
			for _, c := range u["content"].([]any) {
				if cc, ok := c.(map[string]any)["content"].(map[string]any); ok {
					readResult += cc["text"].(string)
				}
			}
		}
	}
	if !strings.Contains(readResult, "unsaved buffer text") {
		t.Errorf("read_file's result %q should be the buffer's text", readResult)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(data) != "on disk\n" {
		t.Errorf("the disk was written: %q", data)
	}
}
