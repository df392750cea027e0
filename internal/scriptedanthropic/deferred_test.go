package scriptedanthropic

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// deferredRequest is a request with a search tool and a large deferred
// tool; loaded adds a tool_result that references the deferred tool.
func deferredRequest(loaded bool, deferredDesc string) []byte {
	ephemeral := map[string]any{"type": "ephemeral"}
	tools := []any{
		map[string]any{"name": "search", "description": "Load tools.", "input_schema": map[string]any{"type": "object"}, "cache_control": ephemeral},
		map[string]any{"name": "big", "description": deferredDesc, "input_schema": map[string]any{"type": "object"}, "defer_loading": true},
	}
	msgs := []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": strings.Repeat("q", 400)}}}}
	if loaded {
		msgs = append(msgs,
			map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "t1", "name": "search", "input": map[string]any{}}}},
			map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "t1",
				"content": []any{map[string]any{"type": "tool_reference", "tool_name": "big"}}}}})
	}
	last := msgs[len(msgs)-1].(map[string]any)["content"].([]any)
	last[len(last)-1].(map[string]any)["cache_control"] = ephemeral
	b, _ := json.Marshal(map[string]any{"model": "m", "max_tokens": 10, "tools": tools, "messages": msgs})
	return b
}

func TestDeferredToolsAreBilledWhereTheyAreLoaded(t *testing.T) {
	var c cache
	big := strings.Repeat("d", 8000)
	in, read, write := c.usage(deferredRequest(false, big))
	if total := in + read + write; total > 200 {
		t.Errorf("a request with an unloaded deferred tool bills %d tokens; its 8,000-byte definition must not count", total)
	}
	first := write
	in, read, write = c.usage(deferredRequest(true, big))
	if read != first {
		t.Errorf("loading the deferred tool read %d tokens from the cache, want the whole earlier prefix (%d)", read, first)
	}
	if in+write < 2000 {
		t.Errorf("the loaded definition counts %d uncached tokens, want its 2,000", in+write)
	}
	// A different deferred definition that is never loaded leaves the
	// prefix as it was.
	var d cache
	_, _, w1 := d.usage(deferredRequest(false, big))
	_, r2, _ := d.usage(deferredRequest(false, "other"))
	if r2 != w1 {
		t.Errorf("changing an unloaded deferred tool read %d tokens, want %d", r2, w1)
	}
}

func TestDeferredToolMisuseIsRejected(t *testing.T) {
	s := New(t, Answer(Text("ok")))
	body := strings.Replace(string(deferredRequest(true, "x")), `"defer_loading":true`, `"defer_loading":false`, 1)
	resp := post(t, s.URL(), body)
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a reference to a tool that is not deferred: status %d, want 400", resp.StatusCode)
	}
	all := strings.Replace(string(deferredRequest(false, "x")), `"name":"search"`, `"defer_loading":true,"name":"search"`, 1)
	if resp := post(t, s.URL(), all); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("every tool deferred: status %d, want 400", resp.StatusCode)
	}
	if resp := post(t, s.URL(), string(deferredRequest(true, "x"))); resp.StatusCode != http.StatusOK {
		t.Errorf("a valid reference: status %d", resp.StatusCode)
	}
}
