package protocols

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	sr "github.com/agent-dev/agent/internal/scriptedresponses"
)

// responsesArgs are the flags that point the agent at a Responses server.
func responsesArgs(srv *sr.Server, args ...string) []string {
	return append([]string{"--provider", "openai-responses", "--base-url", srv.URL(), "--model", "gpt-5-mini", "--max-retries", "0"}, args...)
}

// inputTypes lists the types of a request's input items.
func inputTypes(req sr.Request) []string {
	var types []string
	for _, it := range req.Params.Input {
		types = append(types, it.Type)
	}
	return types
}

// TestResponsesToolCallCarriesReasoning is a turn through the Responses
// API: the model reasons and reads a file, then answers. Its encrypted
// reasoning goes back before its call in the second request (store is
// false, so the server kept nothing), the session's id is the
// prompt_cache_key of both, and a continued session still sends the
// reasoning it stored.
func TestResponsesToolCallCarriesReasoning(t *testing.T) {
	t.Parallel()
	dir := e2e.SourceTree(t)
	db := filepath.Join(t.TempDir(), "agent.db")
	call := sr.Calls(sr.Call("call_read", "read_file", `{"path":"cmd/errors.go","limit":5}`)).
		WithReasoning(sr.Reasoning("rs_e2e", "gAAAA-encrypted-e2e", "**Reading**", "The exit codes live in cmd/errors.go."))
	call.Usage = sr.Usage{Input: 3000, Cached: 2048, Output: 80, Reasoning: 64}
	answer := "Exit codes are decided in `exitCode`."
	srv := sr.New(t, call, sr.Text(answer), sr.Text("Still cmd/errors.go."))
	res := e2e.Run(t, e2e.Invocation{Dir: dir, Env: []string{"OPENAI_API_KEY=sk-e2e"},
		Args: responsesArgs(srv, "--db", db, "--tools", "all", "--reasoning-effort", "low", "--output-format", "stream-json", "-p", "Where is the exit code decided?")})
	if res.Code != 0 {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
	}
	objs := e2e.JSONLines(t, res.Stdout)
	session := objs[0]["session_id"]
	last := objs[len(objs)-1]
	if last["type"] != "result" || last["answer"] != answer {
		t.Fatalf("result = %v", last)
	}
	var reasoning string
	for _, o := range objs {
		if o["type"] == "reasoning_delta" {
			reasoning += o["text"].(string)
		}
	}
	if reasoning != "**Reading**\n\nThe exit codes live in cmd/errors.go." {
		t.Errorf("reasoning deltas %q", reasoning)
	}
	usage := last["usage"].(map[string]any)
	if usage["input_tokens"] != float64(3020) || usage["cached_input_tokens"] != float64(2048) || usage["reasoning_tokens"] != float64(64) {
		t.Errorf("usage %v", usage)
	}
	if _, ok := last["cost_usd"].(float64); !ok {
		t.Errorf("no cost for gpt-5-mini: %v", last)
	}

	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	for i, r := range reqs {
		p := r.Params
		if p.Store == nil || *p.Store || p.PromptCacheKey != session || p.Reasoning == nil || p.Reasoning.Effort != "low" ||
			!reflect.DeepEqual(p.Include, []string{"reasoning.encrypted_content"}) || r.Header.Get("Authorization") != "Bearer sk-e2e" {
			t.Errorf("request %d: store %v, prompt_cache_key %q (session %v), reasoning %+v, include %v", i+1, p.Store, p.PromptCacheKey, session, p.Reasoning, p.Include)
		}
	}
	second := reqs[1].Params
	if want := []string{"message", "reasoning", "function_call", "function_call_output"}; !reflect.DeepEqual(inputTypes(reqs[1]), want) {
		t.Fatalf("second request's input %v, want %v", inputTypes(reqs[1]), want)
	}
	if rs := second.Input[1]; rs.ID != "rs_e2e" || rs.EncryptedContent != "gAAAA-encrypted-e2e" {
		t.Errorf("reasoning sent back as %+v", rs)
	}
	if out := second.Input[3]; out.CallID != "call_read" || !strings.Contains(string(out.Output), "package cmd") {
		t.Errorf("function_call_output %+v", out)
	}

	cont := e2e.Run(t, e2e.Invocation{Dir: dir, Env: []string{"OPENAI_API_KEY=sk-e2e"},
		Args: responsesArgs(srv, "--db", db, "--tools", "all", "-c", "-p", "and now?")})
	if cont.Code != 0 {
		t.Fatalf("continue: exit %d, stderr %q", cont.Code, cont.Stderr)
	}
	third := srv.Requests()[2]
	if want := []string{"message", "reasoning", "function_call", "function_call_output", "message", "message"}; !reflect.DeepEqual(inputTypes(third), want) {
		t.Fatalf("continued request's input %v, want %v", inputTypes(third), want)
	}
	if rs := third.Params.Input[1]; rs.EncryptedContent != "gAAAA-encrypted-e2e" || third.Params.PromptCacheKey != session {
		t.Errorf("continued session: reasoning %+v, prompt_cache_key %q", rs, third.Params.PromptCacheKey)
	}
}

// TestResponsesWebSearch enables web search in a profile: the request
// offers the web_search tool, and the answer's search and citations reach
// stream-json and, as a list of sources, the text output.
func TestResponsesWebSearch(t *testing.T) {
	t.Parallel()
	searched := sr.Reply{Items: []sr.Item{
		{Type: "web_search_call", Query: "go 1.26 release notes", Sources: []string{"https://go.dev/doc/go1.26", "https://go.dev/blog/go1.26"}},
		{Type: "message", Text: "Go 1.26 makes Green Tea the default collector.",
			Citations: []sr.Citation{{Start: 0, End: 46, URL: "https://go.dev/doc/go1.26", Title: "Go 1.26 Release Notes"}}},
	}, Usage: sr.Usage{Input: 300, Output: 40}}
	srv := sr.New(t, searched, searched)
	home := t.TempDir()
	config := filepath.Join(home, "config.toml")
	profile := "[profiles.gpt]\nprovider = \"openai-responses\"\nbase_url = \"" + srv.URL() + "\"\nmodel = \"gpt-4.1\"\nweb_search = true\n"
	if err := os.WriteFile(config, []byte(profile), 0o600); err != nil {
		t.Fatal(err)
	}
	res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Args: []string{"--config", config, "--max-retries", "0", "--output-format", "stream-json", "-p", "what is new in Go 1.26?"}})
	if res.Code != 0 {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
	}
	var search, citation map[string]any
	objs := e2e.JSONLines(t, res.Stdout)
	for _, o := range objs {
		switch o["type"] {
		case "web_search":
			search = o
		case "citation":
			citation = o
		}
	}
	if search == nil || search["query"] != "go 1.26 release notes" || len(search["sources"].([]any)) != 2 {
		t.Errorf("web_search object %v", search)
	}
	if citation == nil || citation["url"] != "https://go.dev/doc/go1.26" || citation["cited_text"] != "Go 1.26 makes Green Tea the default collector." {
		t.Errorf("citation object %v", citation)
	}
	last := objs[len(objs)-1]
	if cs, _ := last["citations"].([]any); len(cs) != 1 || last["usage"].(map[string]any)["web_searches"] != float64(1) {
		t.Errorf("result %v", last)
	}
	if tools := srv.Requests()[0].Params.Tools; len(tools) == 0 || tools[len(tools)-1].Type != "web_search" {
		t.Errorf("tools %+v: want web_search offered", tools)
	}

	text := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Args: []string{"--config", config, "--max-retries", "0", "-p", "again"}})
	want := "Go 1.26 makes Green Tea the default collector.\n\nSources:\n[1] Go 1.26 Release Notes <https://go.dev/doc/go1.26>\n"
	if text.Code != 0 || text.Stdout != want {
		t.Errorf("text output %q (exit %d, stderr %q), want %q", text.Stdout, text.Code, text.Stderr, want)
	}
}
