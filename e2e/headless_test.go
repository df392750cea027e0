package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-dev/agent/internal/scripted"
)

// TestAnswerThroughPickedTools is the main job: the model picks tools, greps
// and reads the real source tree, and answers; the requests show the pick
// mode protocol at work.
func TestAnswerThroughPickedTools(t *testing.T) {
	dir := sourceTree(t)
	answer := "Exit codes are decided in one place: `exitCode` in cmd/errors.go."
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "call_pick", Name: "pick_tools", Arguments: `{"names":["grep","read_file"]}`}),
		scripted.ToolCalls(
			scripted.Call{ID: "grep:0", Name: "grep", Arguments: `{"pattern":"func exitCode\\(","glob":"*.go"}`},
			scripted.Call{ID: "call_read", Name: "read_file", Arguments: `{"path":"cmd/errors.go","limit":5}`},
		),
		scripted.Text(answer),
	)
	res := run(t, invocation{dir: dir, args: agentArgs(srv, "-p", "Where is the exit code decided?")})
	if res.code != 0 || res.stdout != answer+"\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	if res.stderr != "" {
		t.Errorf("stderr is not a terminal and -v is off, yet it got %q", res.stderr)
	}

	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("server got %d requests, want 3", len(reqs))
	}
	first := reqs[0]
	if !hasProperties(toolNamed(first, "pick_tools")) {
		t.Errorf("first request: pick_tools must carry its schema")
	}
	for _, name := range []string{"grep", "read_file", "list_files", "bash"} {
		tool := toolNamed(first, name)
		if tool == nil || hasProperties(tool) || strings.Contains(tool.Function.Description, "\n") {
			t.Errorf("first request: %s should be a one-line brief without parameters, got %+v", name, tool)
		}
	}
	if sys := first.Chat.Messages[0]; sys.Role != "system" || !strings.Contains(sys.Text(), dir) {
		t.Errorf("system prompt should name the working directory %s: %q", dir, sys.Text())
	}
	if len(first.Body) > 12<<10 {
		t.Errorf("first request is %d bytes, the budget is 12 KiB", len(first.Body))
	}

	second := reqs[1]
	if !hasProperties(toolNamed(second, "grep")) || !hasProperties(toolNamed(second, "read_file")) {
		t.Errorf("second request: picked grep and read_file must carry full schemas")
	}
	// The agent's own tools are picked as one group: a later pick would
	// make the provider re-read the whole conversation uncached.
	if !hasProperties(toolNamed(second, "list_files")) || toolNamed(second, "pick_tools") != nil {
		t.Errorf("second request: the group of the agent's tools must be picked whole, and pick_tools gone")
	}
	if got := toolResults(second)["call_pick"]; !strings.Contains(got, "grep") {
		t.Errorf("pick_tools result %q should name grep", got)
	}

	results := toolResults(reqs[2])
	if got := results["grep:0"]; !strings.Contains(got, "cmd/errors.go:") {
		t.Errorf("grep result should find cmd/errors.go, got %q", got)
	}
	if got := results["call_read"]; !strings.Contains(got, "package cmd") {
		t.Errorf("read_file result should hold the file's first lines, got %q", got)
	}
	assertCallsAnswered(t, reqs)
}

func TestAllModeOffersFullSchemas(t *testing.T) {
	srv := scripted.New(t, scripted.Text("hi"))
	res := run(t, invocation{dir: t.TempDir(), args: agentArgs(srv, "-p", "--tools", "all", "hi")})
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	req := srv.Requests()[0]
	if toolNamed(req, "pick_tools") != nil {
		t.Errorf("all mode must not offer pick_tools")
	}
	for _, name := range []string{"grep", "read_file", "list_files", "bash"} {
		if !hasProperties(toolNamed(req, name)) {
			t.Errorf("all mode: %s has no full schema", name)
		}
	}
}

func TestPipedInputIsAttachedToThePrompt(t *testing.T) {
	srv := scripted.New(t, scripted.Text("Looks fine."))
	diff := "diff --git a/x.go b/x.go\n+func added() {}\n"
	res := run(t, invocation{dir: t.TempDir(), stdin: strings.NewReader(diff), args: agentArgs(srv, "-p", "review this")})
	if res.code != 0 || res.stdout != "Looks fine.\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	got := lastUserText(srv.Requests()[0])
	want := "review this\n\nStandard input:\n```stdin\ndiff --git a/x.go b/x.go\n+func added() {}\n```"
	if got != want {
		t.Errorf("user message:\n%s\nwant:\n%s", got, want)
	}
}

func TestPipedInputIsThePromptWithoutArgument(t *testing.T) {
	srv := scripted.New(t, scripted.Text("4"))
	res := run(t, invocation{dir: t.TempDir(), stdin: strings.NewReader("what is 2+2?\n"), args: agentArgs(srv, "-p")})
	if res.code != 0 || res.stdout != "4\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	if got := lastUserText(srv.Requests()[0]); got != "what is 2+2?" {
		t.Errorf("user message %q", got)
	}
}

// TestOpenSilentPipeDoesNotHang is the opencode #38723 case: stdin is a pipe
// whose writer stays open and never writes.
func TestOpenSilentPipeDoesNotHang(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close() // held open for the whole run
	defer r.Close()
	for _, extra := range [][]string{{"--stdin-timeout", "200ms"}, {"--no-stdin"}} {
		srv := scripted.New(t, scripted.Text("hello"))
		args := agentArgs(srv, append([]string{"-p", "hi"}, extra...)...)
		res := run(t, invocation{dir: t.TempDir(), stdin: r, args: args})
		if res.code != 0 || res.stdout != "hello\n" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", extra, res.code, res.stdout, res.stderr)
		}
		if got := lastUserText(srv.Requests()[0]); got != "hi" {
			t.Errorf("%v: user message %q, want just the prompt", extra, got)
		}
	}
}

func TestJSONOutput(t *testing.T) {
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "c1", Name: "list_files", Arguments: `{"pattern":"*.txt"}`}),
		scripted.Text("One text file."),
	)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a"), 0o644)
	res := run(t, invocation{dir: dir, args: agentArgs(srv, "-p", "--output-format", "json", "what files?")})
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	var obj struct {
		Type       string `json:"type"`
		Answer     string `json:"answer"`
		StopReason string `json:"stop_reason"`
		SessionID  string `json:"session_id"`
		Steps      int    `json:"steps"`
		ToolCalls  []struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
			IsError   bool            `json:"is_error"`
		} `json:"tool_calls"`
		Usage struct {
			InputTokens  int `json:"input_tokens"`
			OutputTokens int `json:"output_tokens"`
		} `json:"usage"`
		DurationMS *int64 `json:"duration_ms"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &obj); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, res.stdout)
	}
	if obj.Type != "result" || obj.Answer != "One text file." || obj.StopReason != "answered" || obj.SessionID == "" ||
		obj.Steps != 2 || len(obj.ToolCalls) != 1 || obj.ToolCalls[0].Name != "list_files" || obj.ToolCalls[0].IsError ||
		string(obj.ToolCalls[0].Arguments) != `{"pattern":"*.txt"}` || obj.Usage.InputTokens != 20 || obj.DurationMS == nil {
		t.Errorf("result object: %+v", obj)
	}
}

func TestStreamJSONEvents(t *testing.T) {
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "p", Name: "pick_tools", Arguments: `{"names":["list_files"]}`}),
		scripted.Text("All done here.").WithReasoning("thinking about it"),
	)
	res := run(t, invocation{dir: t.TempDir(), args: agentArgs(srv, "-p", "--output-format", "stream-json", "go")})
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	objs := jsonLines(t, res.stdout)
	if objs[0]["type"] != "init" || objs[len(objs)-1]["type"] != "result" {
		t.Fatalf("first must be init and last result: %v ... %v", objs[0], objs[len(objs)-1])
	}
	var types []string
	var text, reasoning string
	for _, o := range objs {
		typ := o["type"].(string)
		if len(types) == 0 || types[len(types)-1] != typ {
			types = append(types, typ)
		}
		switch typ {
		case "text_delta":
			text += o["text"].(string)
		case "reasoning_delta":
			reasoning += o["text"].(string)
		case "toolset_changed":
			// list_files is one of the agent's own tools, picked as a group.
			if added := o["added"].([]any); len(added) != 9 || !slices.Contains(added, any("list_files")) {
				t.Errorf("toolset_changed %v", o)
			}
		}
	}
	want := []string{"init", "step_started", "usage", "tool_call_started", "tool_call_finished", "toolset_changed",
		"step_started", "reasoning_delta", "text_delta", "usage", "result"}
	if strings.Join(types, ",") != strings.Join(want, ",") {
		t.Errorf("event order:\n%v\nwant\n%v", types, want)
	}
	if text != "All done here." || reasoning != "thinking about it" {
		t.Errorf("deltas add up to %q and %q", text, reasoning)
	}
}

func TestProgressLinesWithVerbose(t *testing.T) {
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "c", Name: "grep", Arguments: `{"pattern":"x("}`}),
		scripted.Text("Bad pattern."),
	)
	res := run(t, invocation{dir: t.TempDir(), args: agentArgs(srv, "-p", "-v", "find x")})
	if res.code != 0 || res.stdout != "Bad pattern.\n" {
		t.Fatalf("exit %d, stdout %q", res.code, res.stdout)
	}
	if !strings.Contains(res.stderr, "· grep pattern=x( (error:") {
		t.Errorf("stderr should have a progress line for the failed grep:\n%s", res.stderr)
	}
}
