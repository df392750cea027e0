package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/agent-dev/agent/providers"
)

// Stream sends req to {base_url}/v1/messages with streaming, and calls
// onEvent (from the calling goroutine; it may be nil) with TextDelta,
// ReasoningDelta (thinking) and ToolCallBegin events as they arrive, and a
// Retry event before each wait between attempts.
//
// A request that failed before any content arrived (HTTP 429, 5xx but 501,
// 529 overloaded_error, a connection failure), a stream that was cut or
// went silent, and an error event of type overloaded_error, api_error or
// rate_limit_error are retried with the shared policy, honouring
// Retry-After; a retried attempt starts afresh, and its Retry event says
// whether deltas already reported were discarded. The Response is never
// nil: after a failure it holds what the last attempt assembled. Errors:
// *providers.APIError after the last try (4xx but 408, 409, 425 and 429 are
// not retried); an error wrapping providers.ErrStreamIdle when no byte
// arrived for Config.IdleTimeout; an error wrapping providers.ErrStreamCut
// when the stream broke or ended without message_stop (the partial text and
// signed thinking are kept); an error with the server's message for any
// other error event; an error wrapping ctx.Err() when ctx was cancelled.
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

// attempt sends one request and streams its answer into asm. It returns a
// *providers.APIError only when no content was reported yet, so that the
// caller may retry.
func (c *Client) attempt(ctx context.Context, params sdk.MessageNewParams, asm *assembler) error {
	actx, a, stop := providers.StartAttempt(ctx, c.cfg.IdleTimeout)
	defer stop()
	stream := c.api.Messages.NewStreaming(actx, params)
	defer stream.Close()
	for stream.Next() {
		asm.add(stream.Current())
	}
	err := stream.Err()
	switch {
	case err == nil && asm.stopped:
		return nil
	case ctx.Err() != nil:
		return fmt.Errorf("streaming the model's answer: %w", ctx.Err())
	case errors.Is(context.Cause(actx), providers.ErrStreamIdle):
		return fmt.Errorf("no byte from the model server for %s: %w", c.cfg.IdleTimeout, providers.ErrStreamIdle)
	}
	var ae *sdk.Error
	if errors.As(err, &ae) && ae.StatusCode >= 400 {
		return a.Failure(ctx, actx, err, func(int) string { return errorMessage(ae.RawJSON(), ae.StatusCode) }, c.redact)
	}
	if a.BodyBytes() == 0 {
		if _, status, _ := a.Answered(); status == 0 && err != nil {
			return a.Failure(ctx, actx, err, http.StatusText, c.redact) // no answer: a connection failure
		}
		return &providers.APIError{Message: "the server closed the connection without answering", Retryable: true}
	}
	if errors.As(err, &ae) { // an error event in a stream that began with HTTP 200
		typ, msg := errorBody(ae.RawJSON(), ae.StatusCode)
		if status, ok := eventStatus[typ]; ok {
			return &providers.APIError{StatusCode: status, Message: c.redact(msg), Retryable: providers.RetryableStatus(status)}
		}
		return fmt.Errorf("the model server sent an error mid-stream: %s", c.redact(msg))
	}
	if err == nil {
		return fmt.Errorf("the stream ended without message_stop: %w", providers.ErrStreamCut)
	}
	return fmt.Errorf("reading the model's stream: %s: %w", c.redact(err.Error()), providers.ErrStreamCut)
}

// eventStatus is the HTTP status an error event's type stands for, for the
// error types worth a retry when no content came yet.
var eventStatus = map[string]int{
	"overloaded_error": 529,
	"api_error":        http.StatusInternalServerError,
	"rate_limit_error": http.StatusTooManyRequests,
}

// errorMessage is the message of an error body
// ({"type":"error","error":{"type":...,"message":...}}), or the body
// shortened, or the status text.
func errorMessage(raw string, status int) string {
	_, msg := errorBody(raw, status)
	return msg
}

// errorBody is the type and message of an error body, or no type and the
// body reduced by providers.BodyMessage.
func errorBody(raw string, status int) (typ, msg string) {
	var body struct {
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(raw), &body) == nil && body.Error.Message != "" {
		return body.Error.Type, body.Error.Type + ": " + body.Error.Message
	}
	return "", providers.BodyMessage(raw, status)
}
