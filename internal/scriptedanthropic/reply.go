// Package scriptedanthropic is an Anthropic Messages API server that
// answers from a script, for tests and benchmarks. It serves
// POST /v1/messages with server-sent events shaped exactly as the API sends
// them (message_start, content_block_start/delta/stop with text_delta,
// thinking_delta, signature_delta and input_json_delta, ping, message_delta,
// message_stop), injects the faults the API produces (HTTP 429 with
// retry-after, 529 overloaded_error, an error event mid-stream, a cut
// stream, a stall), records every request body, and can simulate the
// prompt cache from the request's cache_control breakpoints so that usage
// reports cache reads and writes as the API would.
//
// Replies are served in order, one per request. A request beyond the script
// gets HTTP 500 with an api_error naming the problem, and is recorded.
package scriptedanthropic

import "time"

// Block is one content block of a reply.
type Block struct {
	// Type is "text", "thinking", "redacted_thinking", "tool_use",
	// "server_tool_use" or "web_search_tool_result".
	Type string
	// Text is a text block's text or a thinking block's thinking.
	Text string
	// Signature is a thinking block's signature, sent as one
	// signature_delta after the thinking.
	Signature string
	// Data is a redacted thinking block's data.
	Data string
	// ID, Name and Input are a tool_use or server_tool_use block's; Input
	// is JSON text streamed as input_json_delta pieces. ID is also a
	// web_search_tool_result's tool_use_id.
	ID, Name, Input string
	// Results or ErrorCode are a web_search_tool_result block's content
	// (see WebSearch); Citations a text block's (see CitedText).
	Results   []SearchResult
	ErrorCode string
	Citations []Citation
}

// Text is a text block.
func Text(s string) Block { return Block{Type: "text", Text: s} }

// Thinking is a thinking block with its signature.
func Thinking(s, signature string) Block {
	return Block{Type: "thinking", Text: s, Signature: signature}
}

// Redacted is a redacted thinking block.
func Redacted(data string) Block { return Block{Type: "redacted_thinking", Data: data} }

// ToolUse is a tool_use block.
func ToolUse(id, name, input string) Block {
	return Block{Type: "tool_use", ID: id, Name: name, Input: input}
}

// Usage is what message_start and message_delta report. With
// Options.SimulateCache, Input, CacheRead and CacheWrite are computed from
// the request instead.
type Usage struct {
	Input, Output, CacheRead, CacheWrite int
	// WebSearches is message_delta's server_tool_use.web_search_requests.
	WebSearches int
}

// Fault is how a stream breaks.
type Fault int

// The faults a reply can have.
const (
	NoFault Fault = iota
	// Cut closes the connection abruptly.
	Cut
	// Stall sends nothing more and keeps the connection open until the
	// client or the server gives up.
	Stall
	// ErrorEvent sends an error event (ErrorType, ErrorMessage) and ends
	// the stream, as the API does when it is overloaded mid-stream.
	ErrorEvent
)

// Reply is one scripted answer.
type Reply struct {
	Blocks []Block
	// StopReason is message_delta's stop_reason; empty means tool_use when
	// a block is a tool_use, else end_turn.
	StopReason string
	Usage      Usage
	// PieceSize is the number of runes per delta; 0 means 4.
	PieceSize int
	// Pings is the number of ping events sent after message_start.
	Pings int
	// ChunkDelay is waited before each event.
	ChunkDelay time.Duration
	// OmitStop leaves out message_stop; the body still ends cleanly.
	OmitStop bool

	// Fault strikes after FaultAfter events.
	Fault      Fault
	FaultAfter int

	// Status, when neither 0 nor 200, answers with that HTTP status and a
	// JSON error body of ErrorType and ErrorMessage instead of a stream.
	Status       int
	ErrorType    string
	ErrorMessage string
	// RetryAfter is the raw retry-after header of an error answer.
	RetryAfter string
}

// Answer is a reply made of blocks.
func Answer(blocks ...Block) Reply { return Reply{Blocks: blocks} }

// Error is an HTTP error answer; typ is the API's error type
// (rate_limit_error, overloaded_error, authentication_error, ...).
func Error(status int, typ, message string) Reply {
	return Reply{Status: status, ErrorType: typ, ErrorMessage: message}
}

// WithUsage sets the reply's usage.
func (r Reply) WithUsage(u Usage) Reply { r.Usage = u; return r }

// WithStopReason sets message_delta's stop_reason.
func (r Reply) WithStopReason(s string) Reply { r.StopReason = s; return r }

// WithRetryAfter sets the retry-after header of an error answer.
func (r Reply) WithRetryAfter(v string) Reply { r.RetryAfter = v; return r }

// WithPings sends n ping events after message_start.
func (r Reply) WithPings(n int) Reply { r.Pings = n; return r }

// CutAfter cuts the connection after n events.
func (r Reply) CutAfter(n int) Reply { r.Fault, r.FaultAfter = Cut, n; return r }

// StallAfter stalls the stream after n events.
func (r Reply) StallAfter(n int) Reply { r.Fault, r.FaultAfter = Stall, n; return r }

// ErrorAfter sends an error event of typ after n events and ends the
// stream.
func (r Reply) ErrorAfter(n int, typ, message string) Reply {
	r.Fault, r.FaultAfter, r.ErrorType, r.ErrorMessage = ErrorEvent, n, typ, message
	return r
}
