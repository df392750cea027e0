package sessions

import (
	"reflect"
	"strings"
	"testing"

	"github.com/agent-dev/agent/providers"
)

func TestPartsRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		part providers.Part
		json string
	}{
		{"text", providers.Text{Text: "hello\nworld"}, `[{"type":"text","text":"hello\nworld"}]`},
		{"empty text", providers.Text{}, `[{"type":"text"}]`},
		{"reasoning", providers.Reasoning{Text: "let me think"}, `[{"type":"reasoning","text":"let me think"}]`},
		{"signed reasoning", providers.Reasoning{Text: "hmm", Signature: "sig"}, `[{"type":"reasoning","text":"hmm","signature":"sig"}]`},
		{"redacted reasoning", providers.Reasoning{Redacted: "opaque"}, `[{"type":"reasoning","redacted":"opaque"}]`},
		{"tool call", providers.ToolCall{ID: "call_1", Name: "read_file", Arguments: `{"path":"a.go"}`},
			`[{"type":"tool_call","id":"call_1","name":"read_file","arguments":"{\"path\":\"a.go\"}"}]`},
		{"tool call with invalid JSON arguments", providers.ToolCall{ID: "glob:0", Name: "grep", Arguments: `{"pattern": "x`},
			`[{"type":"tool_call","id":"glob:0","name":"grep","arguments":"{\"pattern\": \"x"}]`},
		{"tool result", providers.ToolResult{CallID: "call_1", Name: "read_file", Content: "package main"},
			`[{"type":"tool_result","call_id":"call_1","name":"read_file","content":"package main"}]`},
		{"error tool result", providers.ToolResult{CallID: "c", Name: "bash", Content: "exit 1", IsError: true},
			`[{"type":"tool_result","call_id":"c","name":"bash","content":"exit 1","is_error":true}]`},
		{"tool result that loads tools", providers.ToolResult{CallID: "p", Name: "pick_tools", Content: "Loaded grep.", References: []string{"grep"}},
			`[{"type":"tool_result","call_id":"p","name":"pick_tools","content":"Loaded grep.","references":["grep"]}]`},
		{"encrypted reasoning (a resumed Responses session sends it back)", providers.Reasoning{Text: "summary", Encrypted: "gAAAA", ItemID: "rs_1"},
			`[{"type":"reasoning","text":"summary","id":"rs_1","encrypted":"gAAAA"}]`},
		{"web search", providers.WebSearch{ID: "srvtoolu_1", Query: "go 1.26", Sources: []providers.Source{{URL: "https://go.dev/doc/go1.26", Title: "Go 1.26"}},
			Vendor: "anthropic", Raw: []byte(`[{"type":"server_tool_use"}]`)},
			`[{"type":"web_search","text":"go 1.26","id":"srvtoolu_1","sources":[{"url":"https://go.dev/doc/go1.26","title":"Go 1.26"}],"vendor":"anthropic","raw":[{"type":"server_tool_use"}]}]`},
		{"failed web search", providers.WebSearch{ID: "ws_1", Error: "unavailable"}, `[{"type":"web_search","id":"ws_1","content":"unavailable"}]`},
		{"citation", providers.Citation{URL: "https://go.dev", Title: "Go", CitedText: "Go is"},
			`[{"type":"citation","text":"Go is","sources":[{"url":"https://go.dev","title":"Go"}]}]`},
		{"unicode", providers.Text{Text: "日本語 \u2028 \x00 é"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := MarshalParts([]providers.Part{tt.part})
			if err != nil {
				t.Fatal(err)
			}
			if tt.json != "" && string(data) != tt.json {
				t.Errorf("encoded\n%s\nwant\n%s", data, tt.json)
			}
			got, err := UnmarshalParts(data)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, []providers.Part{tt.part}) {
				t.Errorf("round trip: got %#v, want %#v", got, tt.part)
			}
		})
	}
}

func TestPartsMixedOrderKept(t *testing.T) {
	parts := []providers.Part{
		providers.Reasoning{Text: "r"}, providers.Text{Text: "t"},
		providers.ToolCall{ID: "1", Name: "a", Arguments: "{}"}, providers.ToolCall{ID: "2", Name: "b"},
	}
	data, err := MarshalParts(parts)
	if err != nil {
		t.Fatal(err)
	}
	got, err := UnmarshalParts(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, parts) {
		t.Errorf("got %#v, want %#v", got, parts)
	}
	if data, err := MarshalParts(nil); err != nil || string(data) != "[]" {
		t.Errorf("no parts: %s, %v", data, err)
	}
}

func TestPartsErrors(t *testing.T) {
	if _, err := MarshalParts([]providers.Part{nil}); err == nil {
		t.Error("nil part: no error")
	}
	for _, tt := range []struct{ data, want string }{
		{`[{"type":"video","url":"x"}]`, `part 0: unknown part type "video"`},
		{`[{"type":"text"},{"text":"no type"}]`, `part 1: missing "type"`},
		{`{"type":"text"}`, "decoding parts"},
		{`not json`, "decoding parts"},
	} {
		_, err := UnmarshalParts([]byte(tt.data))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("UnmarshalParts(%s) = %v, want an error containing %q", tt.data, err, tt.want)
		}
	}
}

func TestPercentile(t *testing.T) {
	for _, tt := range []struct {
		d       []float64
		p, want float64
	}{
		{nil, 0.5, 0},
		{[]float64{7}, 0.95, 7},
		{[]float64{10, 20, 30, 40}, 0.5, 25},
		{[]float64{10, 20, 30}, 0.5, 20},
		{[]float64{10, 20, 30}, 1, 30},
	} {
		if got := percentile(tt.d, tt.p); got != tt.want {
			t.Errorf("percentile(%v, %v) = %v, want %v", tt.d, tt.p, got, tt.want)
		}
	}
}
