package openai

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/agent-dev/agent/providers"
	goopenai "github.com/sashabaranov/go-openai"
)

// Stream sends req to the server's chat completions endpoint with
// streaming, and calls onEvent (from the calling goroutine, which may pass
// nil) with TextDelta, ReasoningDelta and ToolCallBegin events as they
// arrive, and a Retry event before each wait between attempts.
//
// A request that failed before any byte of the response arrived (HTTP 429,
// 5xx but 501, a connection failure), a stream that was cut or went silent,
// and an error event that says the server is overloaded or rate-limited are
// retried up to Config.MaxRetries times with exponential backoff and
// jitter, honouring Retry-After; a retried attempt starts its response
// afresh, and its Retry event says whether deltas already reported were
// discarded. A server that rejects stream_options with a 4xx naming it is
// asked again once without it, and never again for the client's lifetime;
// usage is then zero.
//
// The Response is never nil: after a failure it holds what the last
// attempt assembled (the partial text is kept, tool calls are dropped).
// Errors: *providers.APIError after the last try (4xx but 408, 409, 425 and
// 429, and 501, are not retried); an error wrapping providers.ErrStreamIdle
// when no byte arrived for Config.IdleTimeout; an error wrapping
// providers.ErrStreamCut when the stream broke or ended without a finish
// reason or [DONE]; an error with the server's message for any other error
// event; an error wrapping ctx.Err() when ctx was cancelled, returned as
// soon as the connection is closed.
func (c *Client) Stream(ctx context.Context, req providers.Request, onEvent func(providers.StreamEvent)) (*providers.Response, error) {
	if onEvent == nil {
		onEvent = func(providers.StreamEvent) {}
	}
	var asm *assembler
	reported := func() bool { return asm != nil && asm.reported }
	err := c.retry.DoStream(ctx, onEvent, reported, func() error {
		asm = newAssembler(onEvent) // a retried attempt starts afresh
		includeUsage := !c.noStreamOptions.Load()
		err := c.attempt(ctx, toWire(req, includeUsage, c.cfg.MaxOutputTokens, c.takesImages(req.Model)), asm)
		var apiErr *providers.APIError
		if includeUsage && errors.As(err, &apiErr) && rejectsStreamOptions(apiErr) {
			c.noStreamOptions.Store(true)
			err = c.attempt(ctx, toWire(req, false, c.cfg.MaxOutputTokens, c.takesImages(req.Model)), asm)
		}
		return err
	})
	return asm.response(err == nil), err
}

// attempt sends one request and streams its answer into asm. It returns a
// *providers.APIError only when nothing of the response body arrived, so
// that the caller may retry.
func (c *Client) attempt(ctx context.Context, wreq goopenai.ChatCompletionRequest, asm *assembler) error {
	actx, a, stop := providers.StartAttempt(ctx, c.cfg.IdleTimeout)
	defer stop()
	actx, sse := withSSEState(actx)
	stream, err := c.api.CreateChatCompletionStream(actx, wreq)
	if err != nil {
		return a.Failure(ctx, actx, err, func(status int) string { return serverMessage(err, status) }, c.redact)
	}
	defer stream.Close()
	for {
		chunk, err := stream.Recv()
		if err == nil {
			asm.add(chunk)
			continue
		}
		switch {
		case ctx.Err() != nil:
			return fmt.Errorf("streaming the model's answer: %w", ctx.Err())
		case errors.Is(context.Cause(actx), providers.ErrStreamIdle):
			return fmt.Errorf("no byte from the model server for %s: %w", c.cfg.IdleTimeout, providers.ErrStreamIdle)
		case a.BodyBytes() == 0:
			msg := "the server closed the connection without answering"
			if !errors.Is(err, io.EOF) {
				msg += ": " + c.redact(err.Error())
			}
			return &providers.APIError{Message: msg, Retryable: true}
		case errors.Is(err, io.EOF):
			if asm.finish != "" || sse.sawDone {
				return nil
			}
			return fmt.Errorf("the stream ended without a finish reason or [DONE]: %w", providers.ErrStreamCut)
		}
		var ae *goopenai.APIError
		switch {
		case errors.As(err, &ae) && transientEvent(ae):
			return &providers.APIError{StatusCode: eventStatus(ae), Message: c.redact(ae.Message), Retryable: true}
		case errors.As(err, &ae):
			return fmt.Errorf("the model server sent an error mid-stream: %s", c.redact(ae.Message))
		default:
			return fmt.Errorf("reading the model's stream: %s: %w", c.redact(err.Error()), providers.ErrStreamCut)
		}
	}
}
