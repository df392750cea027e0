package anthropic

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/agent-dev/agent/internal/scriptedanthropic"
	"github.com/agent-dev/agent/providers"
)

// TestWebSearchRequestShape checks the tools entry of the web_search server
// tool, as the tool's documentation writes it, after the agent's own tools.
func TestWebSearchRequestShape(t *testing.T) {
	srv := scriptedanthropic.New(t, scriptedanthropic.Answer(scriptedanthropic.Text("ok")))
	c, _ := newClient(t, srv, Config{WebSearch: true})
	req := providers.Request{Model: "claude-sonnet-4-5", Messages: []providers.Message{userMsg("hi")},
		Tools: []providers.ToolDefinition{{Name: "read_file", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}}}
	if _, err := c.Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	var body struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(srv.Requests()[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	if len(body.Tools) != 2 {
		t.Fatalf("tools %s", body.Tools)
	}
	var got, want any
	json.Unmarshal(body.Tools[1], &got)
	json.Unmarshal([]byte(`{"type":"web_search_20250305","name":"web_search","max_uses":5}`), &want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("web search tool %s", body.Tools[1])
	}
}

// TestWebSearchAnswer streams an answer that searched: server_tool_use,
// web_search_tool_result, then text with web_search_result_location
// citations, and sends the search back in the next request.
func TestWebSearchAnswer(t *testing.T) {
	blocks := append([]scriptedanthropic.Block{scriptedanthropic.Text("I'll search for that.")},
		scriptedanthropic.WebSearch("srvtoolu_01", "go 1.26 release",
			scriptedanthropic.SearchResult{URL: "https://go.dev/doc/go1.26", Title: "Go 1.26 Release Notes", PageAge: "February 11, 2026", Encrypted: "EqgfCioIARgBIiQ3"},
			scriptedanthropic.SearchResult{URL: "https://go.dev/blog/go1.26", Title: "Go 1.26 is released", Encrypted: "EpMgCioIARgBIiQ4"})...)
	blocks = append(blocks, scriptedanthropic.CitedText("Go 1.26 makes the Green Tea collector the default.",
		scriptedanthropic.Citation{URL: "https://go.dev/doc/go1.26", Title: "Go 1.26 Release Notes", CitedText: "The Green Tea garbage collector is now enabled by default.", EncryptedIndex: "Eo8BCioIAhgBIiQy"}))
	srv := scriptedanthropic.New(t,
		scriptedanthropic.Answer(blocks...).WithUsage(scriptedanthropic.Usage{Input: 100, Output: 50, WebSearches: 1}),
		scriptedanthropic.Answer(scriptedanthropic.Text("You're welcome.")))
	c, _ := newClient(t, srv, Config{WebSearch: true})
	var events []providers.StreamEvent
	req := providers.Request{Model: "claude-sonnet-4-5", Messages: []providers.Message{userMsg("what is new in Go 1.26?")}}
	resp, err := c.Stream(context.Background(), req, collect(&events))
	if err != nil {
		t.Fatal(err)
	}
	search := providers.WebSearch{ID: "srvtoolu_01", Query: "go 1.26 release", Vendor: "anthropic", Sources: []providers.Source{
		{URL: "https://go.dev/doc/go1.26", Title: "Go 1.26 Release Notes"}, {URL: "https://go.dev/blog/go1.26", Title: "Go 1.26 is released"}}}
	cite := providers.Citation{URL: "https://go.dev/doc/go1.26", Title: "Go 1.26 Release Notes", CitedText: "The Green Tea garbage collector is now enabled by default."}
	var got []providers.StreamEvent
	for _, ev := range events {
		switch ev.(type) {
		case providers.WebSearched, providers.Cited:
			got = append(got, ev)
		}
	}
	if want := []providers.StreamEvent{providers.WebSearched{Search: search}, providers.Cited{Citation: cite}}; !reflect.DeepEqual(got, want) {
		t.Errorf("events\n%#v\nwant\n%#v", got, want)
	}
	parts := resp.Message.Parts
	if len(parts) != 4 {
		t.Fatalf("parts %#v", parts)
	}
	ws, _ := parts[1].(providers.WebSearch)
	raw := ws.Raw
	ws.Raw = nil
	if !reflect.DeepEqual(ws, search) || parts[0] != (providers.Text{Text: "I'll search for that."}) ||
		parts[2] != (providers.Text{Text: "Go 1.26 makes the Green Tea collector the default."}) || parts[3] != cite {
		t.Errorf("parts %#v", parts)
	}
	if resp.Usage.WebSearches != 1 {
		t.Errorf("usage %+v, want one web search", resp.Usage)
	}

	req.Messages = append(req.Messages, resp.Message, userMsg("thanks"))
	if _, err := c.Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	assistant := srv.Requests()[1].Params.Messages[1]
	var kinds []string
	for _, b := range assistant.Content {
		kinds = append(kinds, b.Type)
	}
	if want := []string{"text", "server_tool_use", "web_search_tool_result", "text"}; !reflect.DeepEqual(kinds, want) {
		t.Fatalf("assistant blocks sent back %v, want %v", kinds, want)
	}
	use, result := assistant.Content[1], assistant.Content[2]
	if use.ID != "srvtoolu_01" || use.Name != "web_search" || string(use.Input) != `{"query":"go 1.26 release"}` || result.ToolUseID != "srvtoolu_01" {
		t.Errorf("search sent back as %+v and %+v", use, result)
	}
	var sent []map[string]any
	if err := json.Unmarshal(result.Content, &sent); err != nil || len(sent) != 2 || sent[0]["encrypted_content"] != "EqgfCioIARgBIiQ3" {
		t.Errorf("result content sent back %s (stored %s)", result.Content, raw)
	}
}

// TestWebSearchError keeps a failed search's error code.
func TestWebSearchError(t *testing.T) {
	blocks := scriptedanthropic.WebSearch("srvtoolu_02", "x")
	blocks[1] = scriptedanthropic.SearchError("srvtoolu_02", "max_uses_exceeded")
	srv := scriptedanthropic.New(t, scriptedanthropic.Answer(append(blocks, scriptedanthropic.Text("I could not search."))...))
	c, _ := newClient(t, srv, Config{WebSearch: true})
	resp, err := c.Stream(context.Background(), providers.Request{Model: "claude-sonnet-4-5", Messages: []providers.Message{userMsg("q")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ws, ok := resp.Message.Parts[0].(providers.WebSearch); !ok || ws.Error != "max_uses_exceeded" || ws.Query != "x" || len(ws.Sources) != 0 {
		t.Errorf("parts %#v", resp.Message.Parts)
	}
}
