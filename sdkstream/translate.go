package sdkstream

import (
	"encoding/json"
	"strconv"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/turn"
)

// translator turns one agent's loop events (the session's, or a
// subagent's, whose messages carry parent_tool_use_id) into the SDK's
// messages: the text and thinking of a step as one assistant message when
// the step's stream ends, each tool call as an assistant message with its
// tool_use block, each result as a user message with its tool_result, and,
// with partial messages on, the stream's deltas as stream_event messages.
type translator struct {
	s      *Server
	parent string // "" for the session's own events
	// model is the model whose messages these are: the session's (or a
	// subagent's) model, then the fallback the turn moved to.
	model  string
	step   int
	blocks []map[string]any // the step's thinking and text so far
	// open is the index of the content block a partial delta goes to, -1
	// when none is open; openType its type (text or thinking).
	open     int
	openType string
	started  bool // message_start sent for the step
}

func (s *Server) newTranslator(parent, model string) *translator {
	return &translator{s: s, parent: parent, model: model, open: -1}
}

func (t *translator) parentID() any {
	if t.parent == "" {
		return nil
	}
	return t.parent
}

func (t *translator) msgID() string {
	return "msg_" + t.s.cfg.Init.SessionID + "_" + t.parent + "_" + strconv.Itoa(t.step)
}

// event translates one event.
func (t *translator) event(ev loop.Event) error {
	switch ev := ev.(type) {
	case loop.StepStarted:
		if err := t.flush(); err != nil {
			return err
		}
		t.step = ev.Step
	case loop.TextDelta:
		return t.delta("text", ev.Text)
	case loop.ReasoningDelta:
		return t.delta("thinking", ev.Text)
	case loop.ToolCallStarted:
		if err := t.flush(); err != nil {
			return err
		}
		block := map[string]any{"type": "tool_use", "id": ev.ID, "name": ev.Name, "input": input(ev.Arguments)}
		return t.assistant([]map[string]any{block})
	case loop.ToolCallFinished:
		block := map[string]any{"type": "tool_result", "tool_use_id": ev.ID, "content": ev.Content, "is_error": ev.IsError}
		return t.s.write(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{block}},
			"parent_tool_use_id": t.parentID(), "session_id": t.s.cfg.Init.SessionID, "uuid": turn.NewID()})
	case loop.Usage:
		return t.flush()
	case loop.Retry:
		if ev.Discarded {
			return t.discard()
		}
	case loop.FellBack:
		var err error
		if ev.Discarded {
			err = t.discard()
		} else {
			err = t.flush() // what the failed model wrote is its own message
		}
		t.model = ev.To
		return err
	}
	return nil
}

// discard ends the step's stream without its text and thinking: a retry
// or a fallback voided them, and the answer that stands comes after.
func (t *translator) discard() error {
	t.blocks = nil
	return t.flush()
}

// delta adds a text or thinking delta to the step's blocks, and streams it
// as a partial when asked to.
func (t *translator) delta(kind, text string) error {
	if n := len(t.blocks); n == 0 || t.blocks[n-1]["type"] != kind {
		t.blocks = append(t.blocks, map[string]any{"type": kind, kind: ""})
	}
	b := t.blocks[len(t.blocks)-1]
	b[kind] = b[kind].(string) + text
	if !t.s.cfg.Partial {
		return nil
	}
	if !t.started {
		t.started = true
		msg := map[string]any{"id": t.msgID(), "type": "message", "role": "assistant", "model": t.model,
			"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 0, "output_tokens": 0}}
		if err := t.partial(map[string]any{"type": "message_start", "message": msg}); err != nil {
			return err
		}
	}
	idx := len(t.blocks) - 1
	if t.open != idx {
		if err := t.closeBlock(); err != nil {
			return err
		}
		t.open, t.openType = idx, kind
		if err := t.partial(map[string]any{"type": "content_block_start", "index": idx, "content_block": map[string]any{"type": kind, kind: ""}}); err != nil {
			return err
		}
	}
	deltaType := "text_delta"
	if kind == "thinking" {
		deltaType = "thinking_delta"
	}
	return t.partial(map[string]any{"type": "content_block_delta", "index": idx, "delta": map[string]any{"type": deltaType, kind: text}})
}

func (t *translator) closeBlock() error {
	if t.open < 0 {
		return nil
	}
	idx := t.open
	t.open = -1
	return t.partial(map[string]any{"type": "content_block_stop", "index": idx})
}

// partial writes a stream_event.
func (t *translator) partial(ev map[string]any) error {
	return t.s.write(map[string]any{"type": "stream_event", "event": ev, "parent_tool_use_id": t.parentID(),
		"session_id": t.s.cfg.Init.SessionID, "uuid": turn.NewID()})
}

// flush ends the step's stream: its text and thinking as an assistant
// message.
func (t *translator) flush() error {
	if t.s.cfg.Partial && t.started {
		if err := t.closeBlock(); err != nil {
			return err
		}
		if err := t.partial(map[string]any{"type": "message_stop"}); err != nil {
			return err
		}
	}
	t.started = false
	if len(t.blocks) == 0 {
		return nil
	}
	blocks := t.blocks
	t.blocks = nil
	return t.assistant(blocks)
}

// assistant writes an assistant message of blocks.
func (t *translator) assistant(blocks []map[string]any) error {
	msg := map[string]any{"id": t.msgID(), "type": "message", "role": "assistant", "model": t.model,
		"content": blocks, "stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 0, "output_tokens": 0}}
	return t.s.write(map[string]any{"type": "assistant", "message": msg, "parent_tool_use_id": t.parentID(),
		"session_id": t.s.cfg.Init.SessionID, "uuid": turn.NewID()})
}

// input is a call's arguments as a JSON object (an object holding the
// text when they are not JSON).
func input(args string) any {
	if args == "" {
		return map[string]any{}
	}
	if json.Valid([]byte(args)) {
		return json.RawMessage(args)
	}
	return map[string]any{"_raw": args}
}
