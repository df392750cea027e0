package responses

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/openai/openai-go/v3/packages/ssestream"
	oai "github.com/openai/openai-go/v3/responses"

	"github.com/agent-dev/agent/providers"
)

// Stream sends req to {base_url}/responses with streaming, and calls
// onEvent (from the calling goroutine; it may be nil) with TextDelta,
// ReasoningDelta (reasoning summaries), ToolCallBegin, WebSearched and
// Cited events as they arrive, and a Retry event before each wait between
// attempts.
//
// A request that failed before any byte of the answer (HTTP 429, 5xx but
// 501, a connection failure), a stream that was cut (it ended without
// response.completed or response.incomplete) or went silent, and a
// response.failed or error event whose code says the server was
// overloaded or rate-limited are retried with the shared policy, honouring
// Retry-After; a retried attempt starts afresh, and its Retry event says
// whether deltas already reported were discarded. The Response is never
// nil: after a failure it holds what the last attempt assembled (text and
// reasoning kept, function calls dropped). Errors: *providers.APIError
// after the last try (4xx but 408, 409, 425 and 429 are not retried); an
// error wrapping providers.ErrStreamIdle when no byte arrived for
// Config.IdleTimeout; an error wrapping providers.ErrStreamCut when the
// stream broke or ended early; an error with the server's code and
// message for any other failure event; an error wrapping ctx.Err() when
// ctx was cancelled.
func (c *Client) Stream(ctx context.Context, req providers.Request, onEvent func(providers.StreamEvent)) (*providers.Response, error) {
	if onEvent == nil {
		onEvent = func(providers.StreamEvent) {}
	}
	params := c.toWire(req)
	var asm *assembler
	reported := func() bool { return asm != nil && asm.anyDelta }
	err := c.retry.DoStream(ctx, onEvent, reported, func() error {
		asm = newAssembler(onEvent) // a retried attempt starts afresh
		return c.attempt(ctx, params, asm)
	})
	return asm.response(err == nil), err
}

// attempt sends one request and streams its answer into asm.
func (c *Client) attempt(ctx context.Context, params oai.ResponseNewParams, asm *assembler) error {
	actx, a, stop := providers.StartAttempt(ctx, c.cfg.IdleTimeout)
	defer stop()
	stream := c.api.NewStreaming(actx, params)
	defer stream.Close()
	for stream.Next() {
		asm.add(stream.Current())
		if asm.failure != nil {
			break
		}
	}
	err := stream.Err()
	switch {
	case asm.failure != nil:
		return c.failureError(asm.failure.Code, asm.failure.Message)
	case err == nil && asm.ended:
		return nil
	case ctx.Err() != nil:
		return fmt.Errorf("streaming the model's answer: %w", ctx.Err())
	case errors.Is(context.Cause(actx), providers.ErrStreamIdle):
		return fmt.Errorf("no byte from the model server for %s: %w", c.cfg.IdleTimeout, providers.ErrStreamIdle)
	}
	var ae *oai.Error
	if errors.As(err, &ae) && ae.StatusCode >= 400 {
		return a.Failure(ctx, actx, err, func(status int) string { return errorMessage(ae, status) }, c.redact)
	}
	if _, status, _ := a.Answered(); status >= 400 {
		return a.Failure(ctx, actx, err, http.StatusText, c.redact) // an error body that is not the API's JSON
	}
	var se *ssestream.StreamError
	if errors.As(err, &se) { // an event {"error":{...}} in a stream that began with HTTP 200
		var body struct {
			Error struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		_ = json.Unmarshal(se.Event.Data, &body)
		return c.failureError(oai.ResponseErrorCode(body.Error.Code), body.Error.Message)
	}
	if a.BodyBytes() == 0 {
		if _, status, _ := a.Answered(); status == 0 && err != nil {
			return a.Failure(ctx, actx, err, http.StatusText, c.redact) // no answer: a connection failure
		}
		return &providers.APIError{Message: "the server closed the connection without answering", Retryable: true}
	}
	if err == nil {
		return fmt.Errorf("the stream ended without response.completed: %w", providers.ErrStreamCut)
	}
	return fmt.Errorf("reading the model's stream: %s: %w", c.redact(err.Error()), providers.ErrStreamCut)
}

// transientCodes are the failure codes worth a retry, with the HTTP status
// each stands for.
var transientCodes = map[string]int{
	"server_error":          http.StatusInternalServerError,
	"rate_limit_exceeded":   http.StatusTooManyRequests,
	"server_is_overloaded":  http.StatusServiceUnavailable,
	"slow_down":             http.StatusServiceUnavailable,
	"vector_store_timeout":  http.StatusGatewayTimeout,
	"overloaded_error":      529,
	"insufficient_capacity": http.StatusServiceUnavailable,
}

// failureError is the error of a response.failed or error event.
func (c *Client) failureError(code oai.ResponseErrorCode, msg string) error {
	text := c.redact(msg)
	if code != "" {
		text = string(code) + ": " + text
	}
	if status, ok := transientCodes[string(code)]; ok {
		return &providers.APIError{StatusCode: status, Message: text, Retryable: true}
	}
	return fmt.Errorf("the model server sent an error mid-stream: %s", text)
}

// errorMessage is the message of an HTTP error answer
// ({"error":{"message":...,"type":...,"code":...}}), or the status text.
func errorMessage(ae *oai.Error, status int) string {
	if ae.Message != "" {
		return ae.Message
	}
	return providers.BodyMessage(ae.RawJSON(), status)
}
