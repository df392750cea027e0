package scripted

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// events returns the data payloads of a streamed reply, [DONE] excluded.
func (r Reply) events(model string, includeUsage bool) []string {
	if r.Raw != nil {
		return r.Raw
	}
	if model == "" {
		model = "scripted-model"
	}
	size := r.PieceSize
	if size <= 0 {
		size = 3
	}
	var out []string
	add := func(choices []any, usage any) {
		c := map[string]any{
			"id":      "chatcmpl-scripted",
			"object":  "chat.completion.chunk",
			"created": 1700000000,
			"model":   model,
			"choices": choices,
		}
		if includeUsage {
			c["usage"] = usage // null on every chunk but the last, as OpenAI does
		}
		b, err := json.Marshal(c)
		if err != nil {
			panic(err) // only maps, strings and numbers: cannot fail
		}
		out = append(out, string(b))
	}
	delta := func(d map[string]any) {
		add([]any{map[string]any{"index": 0, "delta": d, "logprobs": nil, "finish_reason": nil}}, nil)
	}
	for i, p := range Pieces(r.Reasoning, size) {
		d := map[string]any{"reasoning_content": p}
		if i == 0 {
			d["role"] = "assistant"
		}
		delta(d)
	}
	for i, p := range Pieces(r.Text, size) {
		d := map[string]any{"content": p}
		if i == 0 && r.Reasoning == "" {
			d["role"] = "assistant"
		}
		delta(d)
	}
	for i, c := range r.Calls {
		first := map[string]any{"index": i, "type": "function", "function": map[string]any{"name": c.Name, "arguments": ""}}
		if c.ID != "" {
			first["id"] = c.ID
		}
		delta(map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{first}})
		for _, p := range Pieces(c.Arguments, size) {
			delta(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": p}}}})
		}
	}
	if r.Finish != "" {
		add([]any{map[string]any{"index": 0, "delta": map[string]any{}, "logprobs": nil, "finish_reason": r.Finish}}, nil)
	}
	if includeUsage {
		u := r.Usage
		add([]any{}, map[string]any{
			"prompt_tokens":             u.PromptTokens,
			"completion_tokens":         u.CompletionTokens,
			"total_tokens":              u.PromptTokens + u.CompletionTokens,
			"prompt_tokens_details":     map[string]any{"cached_tokens": u.CachedTokens},
			"completion_tokens_details": map[string]any{"reasoning_tokens": u.ReasoningTokens},
		})
	}
	return out
}

// Pieces splits s into pieces of at most n runes, as scripted servers
// stream text.
func Pieces(s string, n int) []string {
	var out []string
	rs := []rune(s)
	for len(rs) > 0 {
		k := min(n, len(rs))
		out = append(out, string(rs[:k]))
		rs = rs[k:]
	}
	return out
}

// stream writes a streamed reply. It returns early when ctx or done ends;
// a Cut fault aborts the connection by panicking with http.ErrAbortHandler,
// which net/http handles silently.
func (r Reply) stream(ctx context.Context, done <-chan struct{}, w http.ResponseWriter, events []string) {
	flusher, _ := w.(http.Flusher)
	flush := func() {
		if flusher != nil {
			flusher.Flush()
		}
	}
	comment := r.Comment
	if comment == "" {
		comment = " OPENROUTER PROCESSING"
	}
	comments := func() {
		for range r.Comments {
			fmt.Fprintf(w, ":%s\n\n", comment)
		}
	}
	wait := func(ch <-chan struct{}) bool {
		select {
		case <-ch:
			return true
		case <-ctx.Done():
		case <-done:
		}
		return false
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
	w.WriteHeader(http.StatusOK)
	flush()
	for i := 0; ; i++ {
		if r.Hold != nil && i == r.HoldAfter && !wait(r.Hold) {
			return
		}
		if r.Fault != NoFault && i == r.FaultAfter {
			flush()
			if r.Fault == Stall {
				wait(nil)
				return
			}
			panic(http.ErrAbortHandler)
		}
		if i == len(events) {
			break
		}
		comments()
		if !sleep(r.ChunkDelay) {
			return
		}
		fmt.Fprintf(w, "data: %s\n\n", events[i])
		flush()
	}
	if !r.OmitDone {
		fmt.Fprint(w, "data: [DONE]\n\n")
	}
	flush()
}
