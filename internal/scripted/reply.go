// Package scripted is an OpenAI-compatible chat completions server that
// answers from a script, for tests and benchmarks. It serves
// POST /v1/chat/completions (and /chat/completions) with server-sent events
// shaped like the ones real servers send (OpenAI, OpenRouter, vLLM, Ollama),
// injects the faults real servers produce (HTTP errors with Retry-After,
// streams cut or stalled half-way, SSE comment lines, stream_options
// rejected) and records every request it received so a test can assert on
// what the client sent.
//
// Replies are served in order, one per request. A request beyond the script
// gets HTTP 500 with a JSON error naming the problem, and is recorded.
package scripted

import (
	"time"
)

// Reply is one scripted answer. The zero Reply streams an empty answer with
// no finish reason; the constructors (Text, ToolCalls, Error) fill in the
// usual shapes and the With methods adjust a copy.
//
// A streamed reply sends, in order: reasoning_content deltas, content
// deltas, the tool calls (each call's id, type and name in its first delta
// beside "content": null, its arguments in pieces), a chunk carrying
// Finish, a usage chunk with an empty choices array when the request asked
// for stream_options.include_usage, and "data: [DONE]".
type Reply struct {
	// Reasoning is streamed first, as delta.reasoning_content pieces.
	Reasoning string
	// Text is streamed as delta.content pieces.
	Text string
	// Calls are streamed after the text, with indices 0, 1, ...
	Calls []Call
	// Finish is the finish_reason of the final choice chunk ("stop",
	// "tool_calls", "length"); empty sends no finish reason at all.
	Finish string
	// Usage is sent in a chunk with empty choices when the request set
	// stream_options.include_usage, and never otherwise.
	Usage Usage
	// PieceSize is the number of runes per delta; 0 means 3.
	PieceSize int
	// Comments is the number of SSE comment lines sent before the first
	// event and between consecutive events (each followed by a blank line,
	// as OpenRouter does).
	Comments int
	// Comment is the text of each comment line, without the leading colon;
	// empty means " OPENROUTER PROCESSING".
	Comment string
	// ChunkDelay is waited before each data event. It makes streams slow;
	// never use it to synchronise a test (see Hold).
	ChunkDelay time.Duration
	// Raw, when not nil, holds the JSON payloads of the data events to send
	// instead of the ones built from the fields above, for shapes the
	// builders do not make.
	Raw []string
	// OmitDone leaves out the final "data: [DONE]"; the body still ends
	// cleanly.
	OmitDone bool

	// Fault breaks the stream after FaultAfter data events.
	Fault Fault
	// FaultAfter is the number of data events sent before Fault strikes.
	FaultAfter int

	// Hold, when not nil, pauses the stream after HoldAfter data events
	// until Hold is closed (or the request or server ends). Tests use it
	// to act at a known point of a stream without sleeping.
	Hold <-chan struct{}
	// HoldAfter is the number of data events sent before waiting on Hold.
	HoldAfter int

	// Status, when neither 0 nor 200, answers with that HTTP status and a
	// JSON error body {"error":{"message":ErrorMessage,...}} instead of a
	// stream.
	Status int
	// ErrorMessage is the message of the JSON error body.
	ErrorMessage string
	// RetryAfter is the raw Retry-After header of an error answer
	// (seconds, or an HTTP date); empty sends none.
	RetryAfter string
}

// Call is one tool call of a Reply.
type Call struct {
	// ID is sent as is, in any shape ("call_x", "glob:0"); empty sends a
	// call without an id, as some local servers do.
	ID string
	// Name is the tool's name.
	Name string
	// Arguments is the JSON text of the arguments, sent in pieces of
	// Reply.PieceSize runes.
	Arguments string
}

// Usage is the token count of a usage chunk.
type Usage struct {
	PromptTokens     int
	CompletionTokens int
	CachedTokens     int
	ReasoningTokens  int
}

// Fault is a way for a stream to break.
type Fault int

// The faults a streamed Reply can suffer.
const (
	// NoFault streams the whole reply.
	NoFault Fault = iota
	// Cut closes the connection abruptly after Reply.FaultAfter data
	// events: no [DONE], no end of the chunked body.
	Cut
	// Stall sends nothing more after Reply.FaultAfter data events until
	// the client gives up or the server closes.
	Stall
)

// Text returns a reply that streams text in small deltas and finishes with
// "stop".
func Text(text string) Reply {
	return Reply{Text: text, Finish: "stop", Usage: Usage{PromptTokens: 10, CompletionTokens: 5}}
}

// ToolCalls returns a reply that streams the calls, with "content": null
// beside them, and finishes with "tool_calls".
func ToolCalls(calls ...Call) Reply {
	return Reply{Calls: calls, Finish: "tool_calls", Usage: Usage{PromptTokens: 10, CompletionTokens: 5}}
}

// Error returns a reply that answers HTTP status with a JSON error body
// carrying message.
func Error(status int, message string) Reply {
	return Reply{Status: status, ErrorMessage: message}
}

// StreamOptionsRejected returns the 400 answer some servers give to a
// request carrying stream_options. Options.RejectStreamOptions does the same
// for every such request without consuming the script.
func StreamOptionsRejected() Reply {
	return Error(400, streamOptionsMessage)
}

const streamOptionsMessage = "Unrecognized request argument supplied: stream_options"

// WithReasoning returns a copy of r that streams reasoning first.
func (r Reply) WithReasoning(reasoning string) Reply { r.Reasoning = reasoning; return r }

// WithUsage returns a copy of r reporting prompt and completion tokens.
func (r Reply) WithUsage(prompt, completion int) Reply {
	r.Usage.PromptTokens, r.Usage.CompletionTokens = prompt, completion
	return r
}

// WithComments returns a copy of r that sends n SSE comment lines before
// the first event and between events.
func (r Reply) WithComments(n int) Reply { r.Comments = n; return r }

// WithPieceSize returns a copy of r whose deltas hold n runes.
func (r Reply) WithPieceSize(n int) Reply { r.PieceSize = n; return r }

// WithChunkDelay returns a copy of r that waits d before each data event.
func (r Reply) WithChunkDelay(d time.Duration) Reply { r.ChunkDelay = d; return r }

// WithoutFinish returns a copy of r that sends no finish_reason.
func (r Reply) WithoutFinish() Reply { r.Finish = ""; return r }

// WithoutDone returns a copy of r that omits "data: [DONE]".
func (r Reply) WithoutDone() Reply { r.OmitDone = true; return r }

// CutAfter returns a copy of r whose connection is closed abruptly after n
// data events.
func (r Reply) CutAfter(n int) Reply { r.Fault, r.FaultAfter = Cut, n; return r }

// StallAfter returns a copy of r that goes silent after n data events until
// the request ends.
func (r Reply) StallAfter(n int) Reply { r.Fault, r.FaultAfter = Stall, n; return r }

// HoldAfterEvents returns a copy of r that pauses after n data events until
// release is closed.
func (r Reply) HoldAfterEvents(n int, release <-chan struct{}) Reply {
	r.Hold, r.HoldAfter = release, n
	return r
}

// WithRetryAfter returns a copy of the error reply r that sends the
// Retry-After header v.
func (r Reply) WithRetryAfter(v string) Reply { r.RetryAfter = v; return r }
