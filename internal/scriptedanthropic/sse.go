package scriptedanthropic

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/agent-dev/agent/internal/scripted"
)

// event is one server-sent event: its name and JSON data.
type event struct {
	name string
	data string
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// events builds the events of r for model with usage u.
func (r Reply) events(model string, u Usage, id string) []event {
	var evs []event
	add := func(name string, v any) { evs = append(evs, event{name, mustJSON(v)}) }
	add("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "content": []any{}, "model": model,
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": u.Input, "cache_creation_input_tokens": u.CacheWrite,
			"cache_read_input_tokens": u.CacheRead, "output_tokens": 1},
	}})
	for range r.Pings {
		add("ping", map[string]any{"type": "ping"})
	}
	n := r.PieceSize
	if n <= 0 {
		n = 4
	}
	stop := "end_turn"
	for i, b := range r.Blocks {
		start := map[string]any{"type": "content_block_start", "index": i}
		delta := func(d map[string]any) {
			add("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": d})
		}
		switch b.Type {
		case "thinking":
			start["content_block"] = map[string]any{"type": "thinking", "thinking": "", "signature": ""}
			add("content_block_start", start)
			for _, p := range scripted.Pieces(b.Text, n) {
				delta(map[string]any{"type": "thinking_delta", "thinking": p})
			}
			if b.Signature != "" {
				delta(map[string]any{"type": "signature_delta", "signature": b.Signature})
			}
		case "redacted_thinking":
			start["content_block"] = map[string]any{"type": "redacted_thinking", "data": b.Data}
			add("content_block_start", start)
		case "tool_use":
			stop = "tool_use"
			start["content_block"] = map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": map[string]any{}}
			add("content_block_start", start)
			delta(map[string]any{"type": "input_json_delta", "partial_json": ""})
			for _, p := range scripted.Pieces(b.Input, n) {
				delta(map[string]any{"type": "input_json_delta", "partial_json": p})
			}
		case "server_tool_use":
			start["content_block"] = map[string]any{"type": "server_tool_use", "id": b.ID, "name": b.Name, "input": map[string]any{}}
			add("content_block_start", start)
			for _, p := range scripted.Pieces(b.Input, n) {
				delta(map[string]any{"type": "input_json_delta", "partial_json": p})
			}
		case "web_search_tool_result":
			start["content_block"] = map[string]any{"type": "web_search_tool_result", "tool_use_id": b.ID, "content": b.searchResultContent()}
			add("content_block_start", start)
		default:
			start["content_block"] = map[string]any{"type": "text", "text": ""}
			add("content_block_start", start)
			for _, p := range scripted.Pieces(b.Text, n) {
				delta(map[string]any{"type": "text_delta", "text": p})
			}
			for _, c := range b.citationDeltas() {
				delta(c)
			}
		}
		add("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	if r.StopReason != "" {
		stop = r.StopReason
	}
	usage := map[string]any{"output_tokens": u.Output}
	if r.Usage.WebSearches > 0 {
		usage["server_tool_use"] = map[string]any{"web_search_requests": r.Usage.WebSearches}
	}
	add("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": usage})
	if !r.OmitStop {
		add("message_stop", map[string]any{"type": "message_stop"})
	}
	return evs
}

// stream writes evs to w with r's faults.
func (r Reply) stream(ctx context.Context, done <-chan struct{}, w http.ResponseWriter, evs []event) {
	flusher, _ := w.(http.Flusher)
	flush := func() {
		if flusher != nil {
			flusher.Flush()
		}
	}
	sleep := func(d time.Duration) bool {
		if d <= 0 {
			return true
		}
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			return true
		case <-ctx.Done():
		case <-done:
		}
		return false
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Request-Id", "req_scripted")
	w.WriteHeader(http.StatusOK)
	flush()
	for i := 0; i <= len(evs); i++ {
		if r.Fault != NoFault && i == r.FaultAfter {
			flush()
			switch r.Fault {
			case Stall:
				select {
				case <-ctx.Done():
				case <-done:
				}
				return
			case ErrorEvent:
				fmt.Fprintf(w, "event: error\ndata: %s\n\n", errorBody(r.ErrorType, r.ErrorMessage))
				flush()
				return
			}
			panic(http.ErrAbortHandler)
		}
		if i == len(evs) {
			break
		}
		if !sleep(r.ChunkDelay) {
			return
		}
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", evs[i].name, evs[i].data)
		flush()
	}
}

func errorBody(typ, msg string) string {
	if typ == "" {
		typ = "api_error"
	}
	return mustJSON(map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}})
}
