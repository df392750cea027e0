package protocols

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/agent-dev/agent/e2e"
	sa "github.com/agent-dev/agent/internal/scriptedanthropic"
)

// TestAnthropicWebSearch enables Anthropic's web search in a profile: the
// request offers the web_search server tool, the search and its citation
// reach stream-json, and the next turn sends the search's blocks back.
func TestAnthropicWebSearch(t *testing.T) {
	t.Parallel()
	blocks := append(sa.WebSearch("srvtoolu_e2e", "go 1.26 release",
		sa.SearchResult{URL: "https://go.dev/doc/go1.26", Title: "Go 1.26 Release Notes", Encrypted: "Eq-enc"}),
		sa.CitedText("Green Tea is the default collector.", sa.Citation{URL: "https://go.dev/doc/go1.26", Title: "Go 1.26 Release Notes",
			CitedText: "The Green Tea garbage collector is now enabled by default.", EncryptedIndex: "Eo-idx"}))
	srv := sa.New(t, sa.Answer(blocks...).WithUsage(sa.Usage{Input: 500, Output: 30, WebSearches: 1}), sa.Answer(sa.Text("Yes.")))
	dir := t.TempDir()
	config := filepath.Join(dir, "config.toml")
	profile := "[profiles.claude]\nprovider = \"anthropic\"\nbase_url = \"" + srv.URL() + "\"\nmodel = \"claude-sonnet-4-5\"\nweb_search = true\n"
	if err := os.WriteFile(config, []byte(profile), 0o600); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "agent.db")
	res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Args: []string{"--config", config, "--db", db, "--max-retries", "0", "--output-format", "stream-json", "-p", "what is new in Go 1.26?"}})
	if res.Code != 0 {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
	}
	var search, citation, last map[string]any
	for _, o := range e2e.JSONLines(t, res.Stdout) {
		switch o["type"] {
		case "web_search":
			search = o
		case "citation":
			citation = o
		case "result":
			last = o
		}
	}
	if search == nil || search["query"] != "go 1.26 release" || search["id"] != "srvtoolu_e2e" {
		t.Errorf("web_search object %v", search)
	}
	if citation == nil || citation["cited_text"] != "The Green Tea garbage collector is now enabled by default." {
		t.Errorf("citation object %v", citation)
	}
	// claude-sonnet-4-5: 500 input at $3, 30 output at $15 per million, one search at $0.01.
	if c, _ := last["cost_usd"].(float64); c < 0.01194 || c > 0.01196 {
		t.Errorf("cost_usd %v, want the search's cent included", last["cost_usd"])
	}
	var tools []map[string]any
	var body struct {
		Tools []map[string]any `json:"tools"`
	}
	if err := json.Unmarshal(srv.Requests()[0].Body, &body); err == nil {
		tools = body.Tools
	}
	if n := len(tools); n == 0 || tools[n-1]["type"] != "web_search_20250305" || tools[n-1]["name"] != "web_search" {
		t.Errorf("tools %v: want the web_search server tool last", tools)
	}

	cont := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Args: []string{"--config", config, "--db", db, "--max-retries", "0", "-r", last["session_id"].(string), "-p", "sure?"}})
	if cont.Code != 0 {
		t.Fatalf("resume: exit %d, stderr %q", cont.Code, cont.Stderr)
	}
	sent := srv.Requests()[1].Params.Messages[1]
	if got := blocksOf(sent); len(got) != 3 || got[0] != "server_tool_use" || got[1] != "web_search_tool_result" || got[2] != "text" {
		t.Errorf("the resumed session sent the answer back as %v", got)
	}
}
