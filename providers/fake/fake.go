// Package fake is a provider that answers from a script, in the neutral
// vocabulary of package providers, for the tests of the loop, the interface
// and the commands that need a model but not a wire format. It streams each
// reply's reasoning and text in small deltas, reports tool calls, returns
// the scripted usage and finish reason, can hold a stream at a known point
// or fail it, and records every request it was given.
//
// Replies are served in order, one per request; a request beyond the script
// fails with an error naming the problem, and is recorded. A provider made
// with NewFunc answers each request from the request itself instead.
package fake

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/agent-dev/agent/providers"
)

// Call is one tool call of a reply.
type Call = providers.ToolCall

// Reply is one scripted answer.
type Reply struct {
	// Reasoning and Text are streamed in deltas of PieceSize runes (0: 3),
	// reasoning first.
	Reasoning string
	Text      string
	// Calls are reported after the text.
	Calls []Call
	// Finish is the finish reason, reported as is ("length", "pause_turn",
	// "content_filter"); empty means tool_calls when there are calls, else
	// stop.
	Finish providers.FinishReason
	Usage  providers.Usage
	// PieceSize is the number of runes per delta; 0 means 3.
	PieceSize int
	// Err, when not nil, fails the stream after its deltas: the response
	// keeps the text and reasoning, drops the calls, and Stream returns Err.
	// providers.ErrStreamCut with some text is a stream cut half-way.
	Err error
	// Hold, when not nil, pauses the stream after HoldAfter deltas until
	// Hold is closed or the context ends (then the context's error is
	// returned). The pause happens between two deltas of reasoning or text,
	// so a held reply needs more than HoldAfter of them.
	Hold      <-chan struct{}
	HoldAfter int
}

// Text is a reply that answers text.
func Text(text string) Reply { return Reply{Text: text} }

// ToolCalls is a reply that calls tools.
func ToolCalls(calls ...Call) Reply { return Reply{Calls: calls} }

// Error is a reply that fails before any delta with err.
func Error(err error) Reply { return Reply{Err: err} }

// WithReasoning sets the reasoning streamed before the text.
func (r Reply) WithReasoning(s string) Reply { r.Reasoning = s; return r }

// WithUsage sets the reply's input and output tokens.
func (r Reply) WithUsage(in, out int) Reply {
	r.Usage = providers.Usage{InputTokens: in, OutputTokens: out}
	return r
}

// WithPieceSize sets the runes per delta.
func (r Reply) WithPieceSize(n int) Reply { r.PieceSize = n; return r }

// HoldAfterEvents pauses the stream after n deltas until release is closed.
func (r Reply) HoldAfterEvents(n int, release <-chan struct{}) Reply {
	r.Hold, r.HoldAfter = release, n
	return r
}

// Provider serves a script, or the answers of a function. It is safe for
// concurrent use.
type Provider struct {
	mu       sync.Mutex
	replies  []Reply
	respond  func(providers.Request) Reply // when not nil, instead of replies
	next     int
	requests []providers.Request
	arrived  chan struct{} // closed and replaced when a request arrives
}

var _ providers.Provider = (*Provider)(nil)

// New returns a provider that serves replies in order.
func New(replies ...Reply) *Provider {
	return &Provider{replies: replies, arrived: make(chan struct{})}
}

// NewFunc returns a provider that answers every request with respond's
// reply to it: a model whose behaviour depends on what it is sent. respond
// is called with the provider's lock held, one request at a time, so it
// must not call the provider's methods; it never runs out of replies.
func NewFunc(respond func(providers.Request) Reply) *Provider {
	return &Provider{respond: respond, arrived: make(chan struct{})}
}

// Requests returns copies of the requests received so far, in order.
func (p *Provider) Requests() []providers.Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.requests)
}

// WaitRequests blocks until at least n requests arrived or ctx ends.
func (p *Provider) WaitRequests(ctx context.Context, n int) error {
	for {
		p.mu.Lock()
		count, arrived := len(p.requests), p.arrived
		p.mu.Unlock()
		if count >= n {
			return nil
		}
		select {
		case <-arrived:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// ErrBeyondScript is returned for a request after the last reply.
var ErrBeyondScript = errors.New("fake: request beyond the script")

// Stream serves the next reply, or respond's reply to req.
func (p *Provider) Stream(ctx context.Context, req providers.Request, onEvent func(providers.StreamEvent)) (*providers.Response, error) {
	if onEvent == nil {
		onEvent = func(providers.StreamEvent) {}
	}
	req.Messages = slices.Clone(req.Messages)
	req.Tools = slices.Clone(req.Tools)
	resp := &providers.Response{Message: providers.Message{Role: providers.RoleAssistant}}
	r, err := p.reply(req)
	if err != nil {
		return resp, err
	}
	n := r.PieceSize
	if n <= 0 {
		n = 3
	}
	st := &streamer{r: r, size: n, onEvent: onEvent}
	if err = st.send(ctx, r.Reasoning, func(s string) providers.StreamEvent { return providers.ReasoningDelta{Text: s} }); err == nil {
		err = st.send(ctx, r.Text, func(s string) providers.StreamEvent { return providers.TextDelta{Text: s} })
	}
	if st.reasoning != "" {
		resp.Message.Parts = append(resp.Message.Parts, providers.Reasoning{Text: st.reasoning})
	}
	if st.text != "" {
		resp.Message.Parts = append(resp.Message.Parts, providers.Text{Text: st.text})
	}
	if err != nil {
		return resp, err
	}
	if r.Err != nil {
		return resp, r.Err
	}
	resp.Usage, resp.FinishReason = r.Usage, r.Finish
	for k, c := range r.Calls {
		onEvent(providers.ToolCallBegin{Index: k, ID: c.ID, Name: c.Name})
		resp.Message.Parts = append(resp.Message.Parts, c)
	}
	if resp.FinishReason == "" {
		resp.FinishReason = providers.FinishStop
		if len(r.Calls) > 0 {
			resp.FinishReason = providers.FinishToolCalls
		}
	}
	return resp, nil
}

// streamer streams a reply's reasoning and text in pieces, waiting at the
// reply's hold, and keeps what it sent (the partial answer on a failure).
type streamer struct {
	r         Reply
	size      int // characters per piece
	onEvent   func(providers.StreamEvent)
	sent      int // pieces sent so far, of both kinds
	reasoning string
	text      string
}

// send streams s in pieces as the events ev makes of them. It returns the
// context's error, as soon as it is done, when the context ends first.
func (st *streamer) send(ctx context.Context, s string, ev func(string) providers.StreamEvent) error {
	for _, piece := range pieces(s, st.size) {
		if st.r.Hold != nil && st.sent == st.r.HoldAfter {
			select {
			case <-st.r.Hold:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		e := ev(piece)
		if _, ok := e.(providers.TextDelta); ok {
			st.text += piece
		} else {
			st.reasoning += piece
		}
		st.onEvent(e)
		st.sent++
	}
	return nil
}

// reply records req and returns the reply that answers it.
func (p *Provider) reply(req providers.Request) (Reply, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.requests = append(p.requests, req)
	close(p.arrived)
	p.arrived = make(chan struct{})
	if p.respond != nil {
		return p.respond(req), nil
	}
	i := p.next
	p.next++
	if i >= len(p.replies) {
		return Reply{}, fmt.Errorf("%w: request %d of %d replies", ErrBeyondScript, i+1, len(p.replies))
	}
	return p.replies[i], nil
}

func pieces(s string, n int) []string {
	var out []string
	r := []rune(s)
	for len(r) > 0 {
		k := min(n, len(r))
		out = append(out, string(r[:k]))
		r = r[k:]
	}
	return out
}
