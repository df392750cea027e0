package openai

import (
	"fmt"
	"strings"

	"github.com/agent-dev/agent/providers"
	goopenai "github.com/sashabaranov/go-openai"
)

// assembler builds a response from stream chunks and reports deltas.
// Reasoning and text each form one part; each tool call is one part; parts
// keep the order in which they began.
type assembler struct {
	onEvent func(providers.StreamEvent)

	order     []slot
	reasoning strings.Builder
	text      strings.Builder
	calls     []*call
	byIndex   map[int]*call
	finish    providers.FinishReason
	usage     providers.Usage
	model     string // the model the server says answered
	chunks    int
	reported  bool // a text or reasoning delta was reported to onEvent
}

type slotKind int

const (
	slotReasoning slotKind = iota
	slotText
	slotCall
)

type slot struct {
	kind slotKind
	call int
}

type call struct {
	pos   int
	id    string
	name  string
	args  strings.Builder
	begun bool
}

func newAssembler(onEvent func(providers.StreamEvent)) *assembler {
	if onEvent == nil {
		onEvent = func(providers.StreamEvent) {}
	}
	a := &assembler{byIndex: map[int]*call{}}
	a.onEvent = func(ev providers.StreamEvent) {
		switch ev.(type) {
		case providers.TextDelta, providers.ReasoningDelta:
			a.reported = true
		}
		onEvent(ev)
	}
	return a
}

// add takes one chunk.
func (a *assembler) add(ch goopenai.ChatCompletionStreamResponse) {
	a.chunks++
	if ch.Model != "" {
		a.model = ch.Model
	}
	if ch.Usage != nil {
		// Some servers report running totals in every chunk: keep the last.
		a.usage = usageFromWire(ch.Usage)
	}
	for _, c := range ch.Choices {
		d := c.Delta
		if d.ReasoningContent != "" {
			if a.reasoning.Len() == 0 {
				a.order = append(a.order, slot{kind: slotReasoning})
			}
			a.reasoning.WriteString(d.ReasoningContent)
			a.onEvent(providers.ReasoningDelta{Text: d.ReasoningContent})
		}
		if d.Content != "" {
			if a.text.Len() == 0 {
				a.order = append(a.order, slot{kind: slotText})
			}
			a.text.WriteString(d.Content)
			a.onEvent(providers.TextDelta{Text: d.Content})
		}
		for i, tc := range d.ToolCalls {
			a.addCall(i, tc)
		}
		if c.FinishReason != "" {
			a.finish = providers.FinishReason(c.FinishReason)
		}
	}
}

// addCall merges one tool-call delta. Calls are keyed by the delta's index;
// a server that omits the index sends whole calls, one per array position,
// and a server that reuses an index for a call with a different id has
// started a new call.
func (a *assembler) addCall(pos int, tc goopenai.ToolCall) {
	idx := pos
	if tc.Index != nil {
		idx = *tc.Index
	}
	c := a.byIndex[idx]
	if c == nil || (tc.ID != "" && c.id != "" && tc.ID != c.id) {
		c = &call{pos: len(a.calls)}
		a.calls = append(a.calls, c)
		a.byIndex[idx] = c
		a.order = append(a.order, slot{kind: slotCall, call: c.pos})
	}
	if c.id == "" && !c.begun {
		c.id = tc.ID
	}
	if c.name == "" {
		c.name = tc.Function.Name
	}
	c.args.WriteString(tc.Function.Arguments)
	if !c.begun && c.name != "" {
		c.begun = true
		if c.id == "" {
			c.id = syntheticID(c.pos)
		}
		a.onEvent(providers.ToolCallBegin{Index: c.pos, ID: c.id, Name: c.name})
	}
}

// syntheticID names a call the server sent without an id; it is stable for
// a position so that a replayed conversation sends the same id.
func syntheticID(pos int) string { return fmt.Sprintf("call_%d", pos) }

// response returns what was assembled. Tool calls are left out when the
// stream failed (complete is false): their arguments may be cut, and a call
// without a result must not reach the conversation.
func (a *assembler) response(complete bool) *providers.Response {
	r := &providers.Response{FinishReason: a.finish, Usage: a.usage, Model: a.model}
	r.Message.Role = providers.RoleAssistant
	for _, s := range a.order {
		switch s.kind {
		case slotReasoning:
			r.Message.Parts = append(r.Message.Parts, providers.Reasoning{Text: a.reasoning.String()})
		case slotText:
			r.Message.Parts = append(r.Message.Parts, providers.Text{Text: a.text.String()})
		case slotCall:
			if !complete {
				continue
			}
			c := a.calls[s.call]
			id, args := c.id, c.args.String()
			if id == "" {
				id = syntheticID(c.pos)
			}
			if strings.TrimSpace(args) == "" {
				args = "{}"
			}
			r.Message.Parts = append(r.Message.Parts, providers.ToolCall{ID: id, Name: c.name, Arguments: args})
		}
	}
	return r
}
