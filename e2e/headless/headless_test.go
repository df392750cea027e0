package headless

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// TestAnswerThroughPickedTools is the main job: the model picks tools, greps
// and reads the real source tree, and answers; the requests show the pick
// mode protocol at work.
func TestAnswerThroughPickedTools(t *testing.T) {
	t.Parallel()
	dir := e2e.SourceTree(t)
	answer := "Exit codes are decided in one place: `exitCode` in cmd/errors.go."
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "call_pick", Name: "pick_tools", Arguments: `{"names":["grep","read_file"]}`}),
		scripted.ToolCalls(
			scripted.Call{ID: "grep:0", Name: "grep", Arguments: `{"pattern":"func exitCode\\(","glob":"*.go"}`},
			scripted.Call{ID: "call_read", Name: "read_file", Arguments: `{"path":"cmd/errors.go","limit":5}`},
		),
		scripted.Text(answer),
	)
	res := e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "-p", "Where is the exit code decided?")})
	if res.Code != 0 || res.Stdout != answer+"\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
	}
	if res.Stderr != "" {
		t.Errorf("stderr is not a terminal and -v is off, yet it got %q", res.Stderr)
	}

	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("server got %d requests, want 3", len(reqs))
	}
	first := reqs[0]
	if !e2e.HasProperties(e2e.ToolNamed(first, "pick_tools")) {
		t.Errorf("first request: pick_tools must carry its schema")
	}
	for _, name := range []string{"grep", "read_file", "list_files", "bash"} {
		tool := e2e.ToolNamed(first, name)
		if tool == nil || e2e.HasProperties(tool) || tool.Function.Description != "" {
			t.Errorf("first request: %s should be its name alone, got %+v", name, tool)
		}
		if !strings.Contains(e2e.ToolNamed(first, "pick_tools").Function.Description, "\n"+name+": ") {
			t.Errorf("first request: pick_tools' description should give %s's brief", name)
		}
	}
	if sys := first.Chat.Messages[0]; sys.Role != "system" || !strings.Contains(sys.Text(), dir) {
		t.Errorf("system prompt should name the working directory %s: %q", dir, sys.Text())
	}
	if len(first.Body) > 12<<10 {
		t.Errorf("first request is %d bytes, the budget is 12 KiB", len(first.Body))
	}

	// The tools never change; the pick's result carries the picked
	// tools' definitions, and only theirs.
	second := reqs[1]
	for _, r := range reqs[1:] {
		if a, b := e2e.ToolsJSON(first), e2e.ToolsJSON(r); a != b {
			t.Errorf("the tools changed:\n%s\n%s", a, b)
		}
	}
	got := e2e.ToolResults(second)["call_pick"]
	for _, want := range []string{`{"name":"grep","description":"Search file contents`, `{"name":"read_file","description":`, `"parameters":{"type":"object","properties":{"path":`} {
		if !strings.Contains(got, want) {
			t.Errorf("pick_tools result lacks %s:\n%s", want, got)
		}
	}
	if strings.Contains(got, `"name":"list_files"`) {
		t.Errorf("pick_tools result loads list_files, which was not picked:\n%s", got)
	}

	results := e2e.ToolResults(reqs[2])
	if got := results["grep:0"]; !strings.Contains(got, "cmd/errors.go:") {
		t.Errorf("grep result should find cmd/errors.go, got %q", got)
	}
	if got := results["call_read"]; !strings.Contains(got, "package cmd") {
		t.Errorf("read_file result should hold the file's first lines, got %q", got)
	}
	e2e.AssertCallsAnswered(t, reqs)
}

func TestAllModeOffersFullSchemas(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.Text("hi"))
	res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Args: e2e.AgentArgs(srv, "-p", "--tools", "all", "hi")})
	if res.Code != 0 {
		t.Fatalf("exit %d: %s", res.Code, res.Stderr)
	}
	req := srv.Requests()[0]
	if e2e.ToolNamed(req, "pick_tools") != nil {
		t.Errorf("all mode must not offer pick_tools")
	}
	for _, name := range []string{"grep", "read_file", "list_files", "bash"} {
		if !e2e.HasProperties(e2e.ToolNamed(req, name)) {
			t.Errorf("all mode: %s has no full schema", name)
		}
	}
}

func TestPipedInputIsAttachedToThePrompt(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.Text("Looks fine."))
	diff := "diff --git a/x.go b/x.go\n+func added() {}\n"
	res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Stdin: strings.NewReader(diff), Args: e2e.AgentArgs(srv, "-p", "review this")})
	if res.Code != 0 || res.Stdout != "Looks fine.\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
	}
	got := e2e.LastUserText(srv.Requests()[0])
	want := "review this\n\nStandard input:\n```stdin\ndiff --git a/x.go b/x.go\n+func added() {}\n```"
	if got != want {
		t.Errorf("user message:\n%s\nwant:\n%s", got, want)
	}
}

func TestPipedInputIsThePromptWithoutArgument(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.Text("4"))
	res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Stdin: strings.NewReader("what is 2+2?\n"), Args: e2e.AgentArgs(srv, "-p")})
	if res.Code != 0 || res.Stdout != "4\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
	}
	if got := e2e.LastUserText(srv.Requests()[0]); got != "what is 2+2?" {
		t.Errorf("user message %q", got)
	}
}

// TestOpenSilentPipeDoesNotHang is the opencode #38723 case: stdin is a pipe
// whose writer stays open and never writes.
func TestOpenSilentPipeDoesNotHang(t *testing.T) {
	t.Parallel()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close() // held open for the whole run
	defer r.Close()
	for _, extra := range [][]string{{"--stdin-timeout", "200ms"}, {"--no-stdin"}} {
		srv := scripted.New(t, scripted.Text("hello"))
		args := e2e.AgentArgs(srv, append([]string{"-p", "hi"}, extra...)...)
		res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Stdin: r, Args: args})
		if res.Code != 0 || res.Stdout != "hello\n" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", extra, res.Code, res.Stdout, res.Stderr)
		}
		if got := e2e.LastUserText(srv.Requests()[0]); got != "hi" {
			t.Errorf("%v: user message %q, want just the prompt", extra, got)
		}
	}
}

func TestJSONOutput(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "c1", Name: "list_files", Arguments: `{"pattern":"*.txt"}`}),
		scripted.Text("One text file."),
	)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a"), 0o644)
	res := e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "-p", "--output-format", "json", "what files?")})
	if res.Code != 0 {
		t.Fatalf("exit %d: %s", res.Code, res.Stderr)
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
	if err := json.Unmarshal([]byte(res.Stdout), &obj); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, res.Stdout)
	}
	if obj.Type != "result" || obj.Answer != "One text file." || obj.StopReason != "answered" || obj.SessionID == "" ||
		obj.Steps != 2 || len(obj.ToolCalls) != 1 || obj.ToolCalls[0].Name != "list_files" || obj.ToolCalls[0].IsError ||
		string(obj.ToolCalls[0].Arguments) != `{"pattern":"*.txt"}` || obj.Usage.InputTokens != 20 || obj.DurationMS == nil {
		t.Errorf("result object: %+v", obj)
	}
}

func TestStreamJSONEvents(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "p", Name: "pick_tools", Arguments: `{"names":["list_files"]}`}),
		scripted.Text("All done here.").WithReasoning("thinking about it"),
	)
	res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Args: e2e.AgentArgs(srv, "-p", "--output-format", "stream-json", "go")})
	if res.Code != 0 {
		t.Fatalf("exit %d: %s", res.Code, res.Stderr)
	}
	objs := e2e.JSONLines(t, res.Stdout)
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
			// In pick mode a pick takes only the tools it names.
			if added := o["added"].([]any); len(added) != 1 || !slices.Contains(added, any("list_files")) {
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
	t.Parallel()
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "c", Name: "grep", Arguments: `{"pattern":"x("}`}),
		scripted.Text("Bad pattern."),
	)
	res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Args: e2e.AgentArgs(srv, "-p", "-v", "find x")})
	if res.Code != 0 || res.Stdout != "Bad pattern.\n" {
		t.Fatalf("exit %d, stdout %q", res.Code, res.Stdout)
	}
	if !strings.Contains(res.Stderr, "· grep pattern=x( (error:") {
		t.Errorf("stderr should have a progress line for the failed grep:\n%s", res.Stderr)
	}
}
