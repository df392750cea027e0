package providers

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Provider streams one model response. It is the only thing the loop needs of
// a model vendor.
type Provider interface {
	// Stream sends req and calls onEvent, from the calling goroutine, for each
	// delta as it arrives. It returns when the response is complete, the
	// context is cancelled or the stream fails.
	//
	// The returned Response is never nil: on error it holds what arrived
	// before the failure (the partial text is kept, tool calls whose
	// arguments were cut are dropped). Errors are *APIError for an HTTP
	// failure after retries, ErrStreamIdle, ErrStreamCut, or the context's
	// error when ctx was cancelled.
	Stream(ctx context.Context, req Request, onEvent func(StreamEvent)) (*Response, error)
}

// Response is one complete model response.
type Response struct {
	// Message is the assistant message: Reasoning, Text and ToolCall parts
	// in the order they began.
	Message      Message
	FinishReason FinishReason
	Usage        Usage
	// Model is the model that answered, as the server names it ("" when
	// it did not say): a dated version of the model asked for, often.
	Model string
}

// StreamEvent is something a provider reports while a response streams. It is
// sealed: TextDelta, ReasoningDelta, ToolCallBegin, Retry, WebSearched and
// Cited.
type StreamEvent interface{ isStreamEvent() }

// TextDelta is the next piece of the assistant's text.
type TextDelta struct{ Text string }

// ReasoningDelta is the next piece of the assistant's reasoning.
type ReasoningDelta struct{ Text string }

// ToolCallBegin reports that the model started a tool call; its arguments
// are still streaming. Index is the call's position in the response.
type ToolCallBegin struct {
	Index int
	ID    string
	Name  string
}

// Retry reports that a request failed, or its stream was cut or went
// silent, and will be sent again after Delay. Attempt counts from 1; Max is
// the configured number of retries. Discarded is true when deltas of the
// failed attempt were already reported: they are void, and the next
// attempt's deltas start the response again.
type Retry struct {
	Attempt   int
	Max       int
	Delay     time.Duration
	Err       error
	Discarded bool
}

func (TextDelta) isStreamEvent()      {}
func (ReasoningDelta) isStreamEvent() {}
func (ToolCallBegin) isStreamEvent()  {}
func (Retry) isStreamEvent()          {}

// ErrStreamIdle is returned when a stream sent no byte for longer than the
// provider's idle timeout.
var ErrStreamIdle = errors.New("the model's stream went silent")

// ErrStreamCut is returned when a stream ended before the response was
// complete (no finish reason and no [DONE]), or the connection broke while it
// streamed. Such a response is retried like a failed request, its partial
// response discarded (see Retry.Discarded).
var ErrStreamCut = errors.New("the model's stream was cut off")

// APIError is an HTTP error answer from a model server.
type APIError struct {
	// StatusCode is the HTTP status; 0 when no answer arrived at all (the
	// connection failed).
	StatusCode int
	// Message is the server's error message, or the connection error.
	Message string
	// Retryable is true for RetryableStatus and connection failures.
	Retryable bool
	// RetryAfter is the server's Retry-After, zero when it sent none.
	RetryAfter time.Duration
}

// Error describes the failure; 401 and 403 say that the API key was refused.
func (e *APIError) Error() string {
	switch {
	case e.StatusCode == 0:
		return "cannot reach the model server: " + e.Message
	case e.IsAuth():
		return fmt.Sprintf("the model server refused the API key (HTTP %d): %s", e.StatusCode, e.Message)
	default:
		return fmt.Sprintf("the model server answered HTTP %d: %s", e.StatusCode, e.Message)
	}
}

// IsAuth reports whether the server refused the credentials (401 or 403).
func (e *APIError) IsAuth() bool { return e.StatusCode == 401 || e.StatusCode == 403 }
