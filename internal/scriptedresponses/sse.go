package scriptedresponses

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// events builds the stream of r as (event type, JSON payload) pairs.
func (r Reply) events(model string) [][2]string {
	b := &builder{model: model, size: r.PieceSize}
	if b.size <= 0 {
		b.size = 4
	}
	b.emit("response.created", map[string]any{"response": b.response("in_progress", nil)})
	b.emit("response.in_progress", map[string]any{"response": b.response("in_progress", nil)})
	for i, it := range r.Items {
		b.item(i, it)
	}
	switch {
	case r.FailCode != "":
		resp := b.response("failed", r.Usage)
		resp["error"] = map[string]any{"code": r.FailCode, "message": r.FailMessage}
		b.emit("response.failed", map[string]any{"response": resp})
	case r.Incomplete != "":
		resp := b.response("incomplete", r.Usage)
		resp["incomplete_details"] = map[string]any{"reason": r.Incomplete}
		b.emit("response.incomplete", map[string]any{"response": resp})
	default:
		b.emit("response.completed", map[string]any{"response": b.response("completed", r.Usage)})
	}
	return b.out
}

type builder struct {
	model string
	size  int
	seq   int
	out   [][2]string
	done  []any // the finished items, for the final response's output
}

func (b *builder) emit(typ string, fields map[string]any) {
	fields["type"] = typ
	fields["sequence_number"] = b.seq
	b.seq++
	data, err := json.Marshal(fields)
	if err != nil {
		panic(err) // maps, slices, strings and numbers only
	}
	b.out = append(b.out, [2]string{typ, string(data)})
}

// response is the Response object of the lifecycle events; usage is nil
// before the end.
func (b *builder) response(status string, usage any) map[string]any {
	r := map[string]any{
		"id": "resp_scripted", "object": "response", "created_at": 1741290958, "status": status,
		"error": nil, "incomplete_details": nil, "instructions": nil, "model": b.model,
		"output": []any{}, "parallel_tool_calls": true, "store": false, "tools": []any{},
		"usage": nil,
	}
	if u, ok := usage.(Usage); ok {
		r["output"] = b.done
		r["usage"] = map[string]any{
			"input_tokens": u.Input, "input_tokens_details": map[string]any{"cached_tokens": u.Cached},
			"output_tokens": u.Output, "output_tokens_details": map[string]any{"reasoning_tokens": u.Reasoning},
			"total_tokens": u.Input + u.Output,
		}
	}
	return r
}

// item streams one output item at index i.
func (b *builder) item(i int, it Item) {
	switch it.Type {
	case "reasoning":
		b.reasoning(i, it)
	case "function_call":
		b.call(i, it)
	case "web_search_call":
		b.search(i, it)
	default:
		b.message(i, it)
	}
}

func (b *builder) reasoning(i int, it Item) {
	id := or(it.ID, fmt.Sprintf("rs_%d", i))
	b.emit("response.output_item.added", map[string]any{"output_index": i,
		"item": map[string]any{"id": id, "type": "reasoning", "summary": []any{}}})
	var summary []any
	for j, s := range it.Summaries {
		base := func() map[string]any { return map[string]any{"item_id": id, "output_index": i, "summary_index": j} }
		f := base()
		f["part"] = map[string]any{"type": "summary_text", "text": ""}
		b.emit("response.reasoning_summary_part.added", f)
		for _, p := range pieces(s, b.size) {
			f := base()
			f["delta"] = p
			b.emit("response.reasoning_summary_text.delta", f)
		}
		f = base()
		f["text"] = s
		b.emit("response.reasoning_summary_text.done", f)
		part := map[string]any{"type": "summary_text", "text": s}
		f = base()
		f["part"] = part
		b.emit("response.reasoning_summary_part.done", f)
		summary = append(summary, part)
	}
	done := map[string]any{"id": id, "type": "reasoning", "summary": nonNil(summary)}
	if it.Encrypted != "" {
		done["encrypted_content"] = it.Encrypted
	}
	b.finish(i, done)
}

func (b *builder) message(i int, it Item) {
	id := or(it.ID, fmt.Sprintf("msg_%d", i))
	b.emit("response.output_item.added", map[string]any{"output_index": i,
		"item": map[string]any{"id": id, "type": "message", "status": "in_progress", "role": "assistant", "content": []any{}}})
	base := func() map[string]any { return map[string]any{"item_id": id, "output_index": i, "content_index": 0} }
	f := base()
	f["part"] = map[string]any{"type": "output_text", "text": "", "annotations": []any{}}
	b.emit("response.content_part.added", f)
	for _, p := range pieces(it.Text, b.size) {
		f := base()
		f["delta"], f["logprobs"] = p, []any{}
		b.emit("response.output_text.delta", f)
	}
	var annotations []any
	for k, c := range it.Citations {
		a := map[string]any{"type": "url_citation", "start_index": c.Start, "end_index": c.End, "url": c.URL, "title": c.Title}
		f := base()
		f["annotation_index"], f["annotation"] = k, a
		b.emit("response.output_text.annotation.added", f)
		annotations = append(annotations, a)
	}
	f = base()
	f["text"], f["logprobs"] = it.Text, []any{}
	b.emit("response.output_text.done", f)
	part := map[string]any{"type": "output_text", "text": it.Text, "annotations": nonNil(annotations), "logprobs": []any{}}
	f = base()
	f["part"] = part
	b.emit("response.content_part.done", f)
	b.finish(i, map[string]any{"id": id, "type": "message", "status": "completed", "role": "assistant", "content": []any{part}})
}

func (b *builder) call(i int, it Item) {
	id := or(it.ID, fmt.Sprintf("fc_%d", i))
	b.emit("response.output_item.added", map[string]any{"output_index": i, "item": map[string]any{
		"id": id, "type": "function_call", "status": "in_progress", "arguments": "", "call_id": it.CallID, "name": it.Name}})
	for _, p := range pieces(it.Arguments, b.size) {
		b.emit("response.function_call_arguments.delta", map[string]any{"item_id": id, "output_index": i, "delta": p})
	}
	b.emit("response.function_call_arguments.done", map[string]any{"item_id": id, "output_index": i, "arguments": it.Arguments})
	b.finish(i, map[string]any{"id": id, "type": "function_call", "status": "completed", "arguments": it.Arguments,
		"call_id": it.CallID, "name": it.Name})
}

func (b *builder) search(i int, it Item) {
	id := or(it.ID, fmt.Sprintf("ws_%d", i))
	b.emit("response.output_item.added", map[string]any{"output_index": i, "item": map[string]any{
		"id": id, "type": "web_search_call", "status": "in_progress"}})
	for _, ev := range []string{"in_progress", "searching", "completed"} {
		b.emit("response.web_search_call."+ev, map[string]any{"item_id": id, "output_index": i})
	}
	var sources []any
	for _, u := range it.Sources {
		sources = append(sources, map[string]any{"type": "url", "url": u})
	}
	b.finish(i, map[string]any{"id": id, "type": "web_search_call", "status": "completed",
		"action": map[string]any{"type": "search", "query": it.Query, "sources": nonNil(sources)}})
}

func (b *builder) finish(i int, item map[string]any) {
	b.emit("response.output_item.done", map[string]any{"output_index": i, "item": item})
	b.done = append(b.done, item)
}

func nonNil(s []any) []any {
	if s == nil {
		return []any{}
	}
	return s
}

func or(s, def string) string {
	if s != "" {
		return s
	}
	return def
}

// pieces splits s into pieces of n runes.
func pieces(s string, n int) []string {
	var out []string
	for s != "" {
		end, count := 0, 0
		for end < len(s) && count < n {
			_, size := utf8.DecodeRuneInString(s[end:])
			end += size
			count++
		}
		out = append(out, s[:end])
		s = s[end:]
	}
	return out
}
