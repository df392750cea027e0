package protocols

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	sa "github.com/agent-dev/agent/internal/scriptedanthropic"
)

// anthropicTool returns the tool called name of a request, or nil.
func anthropicTool(req sa.Request, name string) *sa.Tool {
	for i, tool := range req.Params.Tools {
		if tool.Name == name {
			return &req.Params.Tools[i]
		}
	}
	return nil
}

// blocksOf lists the types of a message's content blocks.
func blocksOf(m sa.Message) []string {
	var types []string
	for _, b := range m.Content {
		types = append(types, b.Type)
	}
	return types
}

// TestAnthropicPickedToolsInParallel is the main job through the Messages
// API: the model thinks and picks tools, then greps and reads in parallel,
// then answers. Thinking goes back signed with the tool results; the system
// prompt is in system; the results are tool_result blocks of one user
// message; breakpoints sit on the tools, the system prompt and the newest
// messages.
func TestAnthropicPickedToolsInParallel(t *testing.T) {
	t.Parallel()
	dir := e2e.SourceTree(t)
	answer := "Exit codes are decided in `exitCode`, cmd/errors.go."
	srv := sa.New(t,
		sa.Answer(sa.Thinking("I need grep and read_file.", "sig-1"),
			sa.ToolUse("toolu_pick", "pick_tools", `{"names":["grep","read_file"]}`)).
			WithUsage(sa.Usage{Input: 3000, Output: 40, CacheWrite: 2500}),
		sa.Answer(sa.Thinking("Search and read at once.", "sig-2"),
			sa.ToolUse("toolu_grep", "grep", `{"pattern":"func exitCode\\(","glob":"*.go"}`),
			sa.ToolUse("toolu_read", "read_file", `{"path":"cmd/errors.go","limit":5}`)).
			WithPings(3).WithUsage(sa.Usage{Input: 200, Output: 60, CacheRead: 2500, CacheWrite: 900}),
		sa.Answer(sa.Text(answer)).WithUsage(sa.Usage{Input: 100, Output: 20, CacheRead: 3400, CacheWrite: 300}),
	)
	res := e2e.Run(t, e2e.Invocation{Dir: dir, Env: []string{"ANTHROPIC_API_KEY=sk-ant-e2e"},
		Args: e2e.AnthropicArgs(srv, "--thinking-budget", "2048", "--output-format", "stream-json", "-p", "Where is the exit code decided?")})
	if res.Code != 0 {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
	}
	objs := e2e.JSONLines(t, res.Stdout)
	last := objs[len(objs)-1]
	if last["type"] != "result" || last["answer"] != answer {
		t.Fatalf("result = %v", last)
	}
	usage := last["usage"].(map[string]any)
	if usage["input_tokens"] != float64(3000+2500+200+2500+900+100+3400+300) || usage["cached_input_tokens"] != float64(5900) || usage["cache_write_tokens"] != float64(3700) {
		t.Errorf("usage = %v", usage)
	}
	// claude-sonnet-4-5: $3 input, $0.30 cache read, $3.75 cache write, $15 output per million.
	wantCost := (3300*3 + 5900*0.30 + 3700*3.75 + 120*15) / 1e6
	if c, ok := last["cost_usd"].(float64); !ok || math.Abs(c-wantCost) > 1e-9 || last["session_cost_usd"] != last["cost_usd"] {
		t.Errorf("cost_usd = %v, session_cost_usd = %v, want %v", last["cost_usd"], last["session_cost_usd"], wantCost)
	}
	var reasoning string
	for _, o := range objs {
		if o["type"] == "reasoning_delta" {
			reasoning += o["text"].(string)
		}
	}
	if reasoning != "I need grep and read_file.Search and read at once." {
		t.Errorf("reasoning deltas = %q", reasoning)
	}

	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	for i, r := range reqs {
		if r.Path != "/v1/messages" || r.Header.Get("X-Api-Key") != "sk-ant-e2e" || r.Params.Thinking == nil || r.Params.Thinking.BudgetTokens != 2048 {
			t.Errorf("request %d: path %s, thinking %+v", i+1, r.Path, r.Params.Thinking)
		}
		if len(r.Params.System) != 1 || !strings.Contains(r.Params.System[0].Text, dir) {
			t.Errorf("request %d: the system prompt should name %s", i+1, dir)
		}
	}
	if anthropicTool(reqs[0], "grep") == nil || anthropicTool(reqs[1], "grep") == nil {
		t.Fatal("grep is not offered")
	}
	// Pick mode: every tool but pick_tools is deferred in full, the same in
	// every request; the pick's result is the references that load them.
	for _, r := range reqs {
		if g := anthropicTool(r, "grep"); !g.DeferLoading || !strings.Contains(string(g.InputSchema), `"pattern"`) {
			t.Errorf("grep should be deferred with its full schema: %+v", g)
		}
		if p := anthropicTool(r, "pick_tools"); p == nil || p.DeferLoading {
			t.Errorf("pick_tools must be in the prompt: %+v", p)
		}
	}
	if refs := reqs[1].Params.Messages[2].Content[0].References(); !reflect.DeepEqual(refs, []string{"grep", "read_file"}) {
		t.Errorf("the pick's result references %v, want grep and read_file", refs)
	}

	third := reqs[2].Params
	if len(third.Messages) != 5 {
		t.Fatalf("third request: %d messages, want user, assistant, user, assistant, user", len(third.Messages))
	}
	for i, want := range [][]string{
		{"text"}, {"thinking", "tool_use"}, {"tool_result"}, {"thinking", "tool_use", "tool_use"}, {"tool_result", "tool_result"},
	} {
		if got := blocksOf(third.Messages[i]); !reflect.DeepEqual(got, want) {
			t.Errorf("third request, message %d: blocks %v, want %v", i, got, want)
		}
	}
	if b := third.Messages[3].Content[0]; b.Signature != "sig-2" || b.Thinking != "Search and read at once." {
		t.Errorf("the thinking block did not go back unchanged: %+v", b)
	}
	results := third.Messages[4].Content
	if results[0].ToolUseID != "toolu_grep" || !strings.Contains(results[0].ResultText(), "cmd/errors.go:") ||
		results[1].ToolUseID != "toolu_read" || !strings.Contains(results[1].ResultText(), "package cmd") {
		t.Errorf("tool results = %+v", results)
	}

	// Breakpoints: the last tool in the prompt (pick_tools, the others are
	// deferred), the system prompt, the newest message and the user message
	// before it.
	want := []string{"tools[0]", "system[0]", "messages[2].content[0]", "messages[4].content[1]"}
	if got := third.Breakpoints(); !reflect.DeepEqual(got, want) {
		t.Errorf("third request: breakpoints %v, want %v", got, want)
	}
}

// TestAnthropicThinkingAcrossContinue: a session continued with -c sends
// the thinking of its earlier tool round back, signed, from the store.
func TestAnthropicThinkingAcrossContinue(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(t.TempDir(), "agent.db")
	srv := sa.New(t,
		sa.Answer(sa.Thinking("List first.", "sig-list"), sa.Redacted("opaque-data"),
			sa.ToolUse("toolu_ls", "list_files", `{}`)),
		sa.Answer(sa.Text("It is empty.")),
		sa.Answer(sa.Text("Still empty.")),
	)
	env := []string{"ANTHROPIC_API_KEY=k"}
	if res := e2e.Run(t, e2e.Invocation{Dir: dir, Env: env, Args: e2e.AnthropicArgs(srv, "--db", db, "--tools", "all", "--thinking-budget", "1024", "-p", "what is here?")}); res.Code != 0 {
		t.Fatalf("first run: exit %d, stderr %q", res.Code, res.Stderr)
	}
	if res := e2e.Run(t, e2e.Invocation{Dir: dir, Env: env, Args: e2e.AnthropicArgs(srv, "--db", db, "--tools", "all", "--thinking-budget", "1024", "-c", "-p", "and now?")}); res.Code != 0 {
		t.Fatalf("second run: exit %d, stderr %q", res.Code, res.Stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	msgs := reqs[2].Params.Messages
	if len(msgs) != 5 {
		t.Fatalf("continued request: %d messages, want 5", len(msgs))
	}
	a := msgs[1].Content
	if got := blocksOf(msgs[1]); !reflect.DeepEqual(got, []string{"thinking", "redacted_thinking", "tool_use"}) {
		t.Fatalf("continued request, first assistant message: %v", got)
	}
	if a[0].Signature != "sig-list" || a[0].Thinking != "List first." || a[1].Data != "opaque-data" {
		t.Errorf("thinking from the store: %+v", a[:2])
	}
}

// TestAnthropicFaults: a 529 is retried; an error event after content
// fails the turn with the server's message and keeps the partial answer.
func TestAnthropicFaults(t *testing.T) {
	t.Parallel()
	srv := sa.New(t,
		sa.Error(529, "overloaded_error", "Overloaded").WithRetryAfter("0.01"),
		sa.Answer(sa.Text("fine")),
		sa.Answer(sa.Text("half an answer and then")).ErrorAfter(4, "overloaded_error", "Overloaded"),
		sa.Answer(sa.Text("whole")),
		sa.Answer(sa.Text("half an answer and then")).ErrorAfter(4, "invalid_request_error", "Your prompt is refused"),
	)
	env := []string{"ANTHROPIC_API_KEY=k"}
	args := []string{"--provider", "anthropic", "--base-url", srv.URL(), "--model", "claude-haiku-4-5", "--max-retries", "1"}
	res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Env: env, Args: append(args, "-p", "hi")})
	if res.Code != 0 || res.Stdout != "fine\n" {
		t.Fatalf("after a 529: exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
	}
	res = e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Env: env, Args: append(args, "-p", "hi")})
	if res.Code != 0 || res.Stdout != "whole\n" {
		t.Errorf("an overloaded event mid-stream is retried: exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
	}
	res = e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Env: env, Args: append(args, "-p", "hi")})
	if res.Code != 1 || !strings.Contains(res.Stderr, "Your prompt is refused") {
		t.Errorf("another error event mid-stream ends the turn: exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
	}
}

func TestAnthropicNeedsAKey(t *testing.T) {
	t.Parallel()
	res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Args: []string{"--provider", "anthropic", "--model", "claude-sonnet-4-5", "-p", "hi"}})
	if res.Code != 2 || !strings.Contains(res.Stderr, "ANTHROPIC_API_KEY") {
		t.Errorf("exit %d, stderr %q", res.Code, res.Stderr)
	}
}

// TestAnthropicUnknownModelHasNoCost: a model without a price shows no
// cost, never a wrong one; a profile's [price] table gives it one.
func TestAnthropicUnknownModelHasNoCost(t *testing.T) {
	t.Parallel()
	srv := sa.New(t, sa.Answer(sa.Text("a")).WithUsage(sa.Usage{Input: 1000, Output: 100}),
		sa.Answer(sa.Text("b")).WithUsage(sa.Usage{Input: 1000, Output: 100}))
	args := []string{"--provider", "anthropic", "--base-url", srv.URL(), "--model", "my-own-model", "--output-format", "json", "-p", "hi"}
	res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Env: []string{"ANTHROPIC_API_KEY=k"}, Args: args})
	objs := e2e.JSONLines(t, res.Stdout)
	if _, ok := objs[0]["cost_usd"]; ok || res.Code != 0 {
		t.Errorf("exit %d, an unknown model got a cost: %v", res.Code, objs[0])
	}
	cfg := filepath.Join(t.TempDir(), "config.toml")
	os.WriteFile(cfg, []byte("[profiles.mine]\nprovider = \"anthropic\"\nmodel = \"my-own-model\"\n[profiles.mine.price]\ninput = 2.0\noutput = 10.0\n"), 0o600)
	res = e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Env: []string{"ANTHROPIC_API_KEY=k"},
		Args: []string{"--config", cfg, "--base-url", srv.URL(), "--output-format", "json", "-p", "hi"}})
	objs = e2e.JSONLines(t, res.Stdout)
	if c, _ := objs[0]["cost_usd"].(float64); math.Abs(c-(1000*2.0+100*10.0)/1e6) > 1e-9 {
		t.Errorf("exit %d, stderr %q, cost with the profile's price: %v", res.Code, res.Stderr, objs[0]["cost_usd"])
	}
}

// TestAnthropicCutStreamDoesNotPoisonTheSession: a stream cut in the
// middle of a thinking block fails the turn and keeps what was shown; the
// session continued with -c sends no unsigned thinking back, and a stalled
// stream fails with the idle timeout.
func TestAnthropicCutStreamDoesNotPoisonTheSession(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(t.TempDir(), "agent.db")
	srv := sa.New(t,
		// message_start, thinking start, two thinking deltas: cut before the signature.
		sa.Answer(sa.Thinking("Half a thought that never", "sig-never"), sa.Text("no")).CutAfter(4),
		sa.Answer(sa.Text("Answered.")),
		sa.Answer(sa.Text("slow")).StallAfter(3),
	)
	env := []string{"ANTHROPIC_API_KEY=k"}
	args := e2e.AnthropicArgs(srv, "--db", db, "--thinking-budget", "1024", "--idle-timeout", "3s")
	res := e2e.Run(t, e2e.Invocation{Dir: dir, Env: env, Args: append(args, "--output-format", "stream-json", "-p", "think")})
	if res.Code == 0 || !strings.Contains(res.Stdout, "reasoning_delta") {
		t.Fatalf("a cut stream: exit %d, stdout %q", res.Code, res.Stdout)
	}
	res = e2e.Run(t, e2e.Invocation{Dir: dir, Env: env, Args: append(args, "-c", "-p", "again")})
	if res.Code != 0 || res.Stdout != "Answered.\n" {
		t.Fatalf("continued: exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
	}
	for _, m := range srv.Requests()[1].Params.Messages {
		for _, b := range m.Content {
			if b.Type == "thinking" || strings.Contains(b.Text, "Half a thought") {
				t.Errorf("the unsigned thinking of the cut stream was sent back: %+v", b)
			}
		}
	}
	res = e2e.Run(t, e2e.Invocation{Dir: dir, Env: env, Args: append(args, "-c", "-p", "and?")})
	if res.Code == 0 || !strings.Contains(res.Stderr, "silent") && !strings.Contains(res.Stderr, "no byte") {
		t.Errorf("a stalled stream: exit %d, stderr %q", res.Code, res.Stderr)
	}
}
