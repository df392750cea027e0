package scriptedanthropic

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url+"/v1/messages", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// events reads the event names and data objects of a stream.
func events(t *testing.T, resp *http.Response) (names []string, data []map[string]any) {
	t.Helper()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			names = append(names, strings.TrimPrefix(line, "event: "))
		case strings.HasPrefix(line, "data: "):
			var obj map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &obj); err != nil {
				t.Fatalf("data is not JSON: %q", line)
			}
			data = append(data, obj)
		}
	}
	return names, data
}

func TestStreamShape(t *testing.T) {
	srv := New(t, Answer(Thinking("hm", "sig"), Text("Hi!"), ToolUse("toolu_1", "grep", `{"p":1}`)).WithPings(1).
		WithUsage(Usage{Input: 5, Output: 9, CacheRead: 3, CacheWrite: 2}))
	names, data := events(t, post(t, srv.URL(), `{"model":"claude-x","max_tokens":10,"stream":true,"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}`))
	want := "message_start ping " +
		"content_block_start content_block_delta content_block_delta content_block_stop " +
		"content_block_start content_block_delta content_block_stop " +
		"content_block_start content_block_delta content_block_delta content_block_delta content_block_stop " +
		"message_delta message_stop"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("events:\n%s\nwant\n%s", got, want)
	}
	for i, d := range data {
		if d["type"] != names[i] {
			t.Errorf("event %d: name %s, data type %v", i, names[i], d["type"])
		}
	}
	usage := data[0]["message"].(map[string]any)["usage"].(map[string]any)
	if usage["input_tokens"] != 5.0 || usage["cache_read_input_tokens"] != 3.0 || usage["cache_creation_input_tokens"] != 2.0 {
		t.Errorf("message_start usage = %v", usage)
	}
	if d := data[len(data)-2]; d["delta"].(map[string]any)["stop_reason"] != "tool_use" || d["usage"].(map[string]any)["output_tokens"] != 9.0 {
		t.Errorf("message_delta = %v", d)
	}
	if sig := data[4]["delta"].(map[string]any); sig["type"] != "signature_delta" || sig["signature"] != "sig" {
		t.Errorf("signature delta = %v", sig)
	}
	req := srv.Requests()[0]
	if req.Params.Model != "claude-x" || req.Params.Messages[0].Content[0].Text != "hi" {
		t.Errorf("recorded %+v", req.Params)
	}
}

func TestErrorAnswers(t *testing.T) {
	srv := New(t, Error(529, "overloaded_error", "Overloaded").WithRetryAfter("2"), Answer(Text("abc")).ErrorAfter(2, "api_error", "boom"))
	resp := post(t, srv.URL(), `{"model":"m","messages":[]}`)
	var body struct {
		Type  string `json:"type"`
		Error struct{ Type, Message string }
	}
	json.NewDecoder(resp.Body).Decode(&body)
	if resp.StatusCode != 529 || resp.Header.Get("Retry-After") != "2" || body.Type != "error" || body.Error.Type != "overloaded_error" {
		t.Errorf("status %d, body %+v", resp.StatusCode, body)
	}
	names, data := events(t, post(t, srv.URL(), `{"model":"m","messages":[]}`))
	if strings.Join(names, " ") != "message_start content_block_start error" || data[2]["error"].(map[string]any)["message"] != "boom" {
		t.Errorf("events %v, %v", names, data)
	}
	if resp := post(t, srv.URL(), `{"model":"m","messages":[]}`); resp.StatusCode != 500 {
		t.Errorf("beyond the script: %d", resp.StatusCode)
	}
}

func TestSimulatedCache(t *testing.T) {
	var c cache
	long := strings.Repeat("x", 4000)
	req := func(msgs ...string) []byte {
		var m []map[string]any
		for i, text := range msgs {
			role := "user"
			if i%2 == 1 {
				role = "assistant"
			}
			block := map[string]any{"type": "text", "text": text}
			if i == len(msgs)-1 {
				block["cache_control"] = map[string]any{"type": "ephemeral"}
			}
			m = append(m, map[string]any{"role": role, "content": []any{block}})
		}
		b, _ := json.Marshal(map[string]any{"system": []any{map[string]any{"type": "text", "text": long, "cache_control": map[string]any{"type": "ephemeral"}}}, "messages": m})
		return b
	}
	in, read, write := c.usage(req("q1"))
	if read != 0 || write == 0 || in != 0 {
		t.Errorf("first request: input %d, read %d, write %d", in, read, write)
	}
	first := write
	_, read, write = c.usage(req("q1", "a1", "q2"))
	if read != first || write == 0 {
		t.Errorf("second request: read %d (want %d), write %d", read, first, write)
	}
	// Without breakpoints nothing is read or written.
	in, read, write = c.usage([]byte(`{"messages":[{"role":"user","content":[{"type":"text","text":"q1"}]}]}`))
	if read != 0 || write != 0 || in == 0 {
		t.Errorf("no breakpoints: input %d, read %d, write %d", in, read, write)
	}
}
