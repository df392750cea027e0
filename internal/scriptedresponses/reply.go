// Package scriptedresponses is an OpenAI Responses API server that answers
// from a script, for tests: POST /v1/responses (and /responses) streamed as
// server-sent events in the documented order (response.created,
// response.in_progress, each output item's added, delta, done events,
// response.completed), with HTTP errors, failure events and streams cut
// half-way, and a record of every request for a test to assert on. GET
// /v1/models lists one model.
//
// The events follow the API reference's "Streaming events" and the shapes
// of openai-go's types; they are transcribed from the documented format,
// not captured from OpenAI's servers. Replies are served in order, one per
// request; a request beyond the script gets HTTP 500.
package scriptedresponses

// Reply is one scripted answer: its output items in order, streamed one
// after the other, then response.completed (or response.incomplete when
// Incomplete is set) with Usage.
type Reply struct {
	Items []Item
	Usage Usage
	// Incomplete ends the stream with response.incomplete and this
	// incomplete_details.reason ("max_output_tokens", "content_filter").
	Incomplete string
	// FailCode and FailMessage end the stream, after the items, with
	// response.failed carrying that error instead of response.completed.
	FailCode, FailMessage string
	// CutAfter, when positive, closes the connection abruptly after that
	// many events.
	CutAfter int
	// SSE, when not empty, is sent as the whole body instead of the events
	// built from the fields above: a transcript of a documented stream.
	SSE string
	// Status, when neither 0 nor 200, answers with that status and the
	// documented JSON error body carrying ErrorMessage; RetryAfter is its
	// Retry-After header.
	Status       int
	ErrorMessage string
	RetryAfter   string
	// PieceSize is the runes per delta; 0 means 4.
	PieceSize int
}

// Item is one output item of a Reply. Type is "message", "reasoning",
// "function_call" or "web_search_call"; the fields of that type are used.
type Item struct {
	Type string
	ID   string
	// Text is a message's text.
	Text string
	// Citations are a message's url_citation annotations.
	Citations []Citation
	// Summaries are a reasoning item's summary parts; Encrypted its
	// encrypted_content.
	Summaries []string
	Encrypted string
	// CallID, Name and Arguments are a function call's.
	CallID, Name, Arguments string
	// Query and Sources are a web search's action.
	Query   string
	Sources []string
}

// Citation is a url_citation annotation of the characters Start to End of a
// message's text.
type Citation struct {
	Start, End int
	URL, Title string
}

// Usage is the response's token counts.
type Usage struct {
	Input, Cached, Output, Reasoning int
}

// Text is a reply of one message.
func Text(text string) Reply {
	return Reply{Items: []Item{{Type: "message", Text: text}}, Usage: Usage{Input: 20, Output: 5}}
}

// Calls is a reply of function calls, made in parallel.
func Calls(calls ...Item) Reply {
	for i := range calls {
		calls[i].Type = "function_call"
	}
	return Reply{Items: calls, Usage: Usage{Input: 20, Output: 10}}
}

// Call is a function call item.
func Call(callID, name, args string) Item {
	return Item{Type: "function_call", CallID: callID, Name: name, Arguments: args}
}

// Reasoning is a reasoning item with its summaries and encrypted content.
func Reasoning(id, encrypted string, summaries ...string) Item {
	return Item{Type: "reasoning", ID: id, Encrypted: encrypted, Summaries: summaries}
}

// WithReasoning returns a copy of r whose items start with reasoning.
func (r Reply) WithReasoning(it Item) Reply {
	r.Items = append([]Item{it}, r.Items...)
	return r
}

// Error is a reply that answers HTTP status with the documented JSON error
// body.
func Error(status int, message string) Reply { return Reply{Status: status, ErrorMessage: message} }
