package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// maxStdinBytes caps what is read from standard input (1 MiB); the rest is
// left unread and the prompt says it was cut.
const maxStdinBytes = 1 << 20

// stdinIdle bounds every silence of standard input once the first byte
// arrived, and the wait for a prompt that can only come from standard input.
const stdinIdle = 30 * time.Second

// stdinResult is what readStdin found.
type stdinResult struct {
	Data      string
	Truncated bool
	// TimedOut is true when nothing arrived in time and standard input was
	// ignored.
	TimedOut bool
	// Stalled is true when the input went silent for longer than the idle
	// limit after data had arrived; Data holds what came before.
	Stalled bool
}

// readStdin reads piped standard input under this rule:
//
//   - It waits at most firstByte for the first byte (or end of file). A pipe
//     whose writer stays open without writing, as supervisors and CI runners
//     leave behind, is then ignored instead of hanging the run (the opencode
//     #38723 failure).
//   - Once data flows it reads to end of file, up to maxStdinBytes, but a
//     silence longer than idle ends the input with what arrived.
//   - A zero limit waits without bound. Cancelling ctx (SIGINT) stops the
//     wait and returns ctx's error.
//
// A reader that is still blocked when readStdin returns is left behind; the
// process exits without waiting for it.
func readStdin(ctx context.Context, r io.Reader, firstByte, idle time.Duration) (stdinResult, error) {
	type chunk struct {
		data []byte
		err  error
	}
	chunks := make(chan chunk)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			buf := make([]byte, 64<<10)
			n, err := r.Read(buf)
			select {
			case chunks <- chunk{buf[:n], err}:
			case <-stop:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	var buf bytes.Buffer
	wait := firstByte
	for {
		var timeout <-chan time.Time
		if wait > 0 {
			timer := time.NewTimer(wait)
			defer timer.Stop()
			timeout = timer.C
		}
		select {
		case <-ctx.Done():
			return stdinResult{}, ctx.Err()
		case <-timeout:
			if buf.Len() == 0 {
				return stdinResult{TimedOut: true}, nil
			}
			return stdinResult{Data: buf.String(), Stalled: true}, nil
		case c := <-chunks:
			buf.Write(c.data)
			if buf.Len() > maxStdinBytes {
				return stdinResult{Data: buf.String()[:maxStdinBytes], Truncated: true}, nil
			}
			if errors.Is(c.err, io.EOF) {
				return stdinResult{Data: buf.String()}, nil
			}
			if c.err != nil {
				return stdinResult{}, fmt.Errorf("reading standard input: %w", c.err)
			}
		}
		wait = idle
	}
}

// composePrompt joins the prompt argument and piped input. With no argument
// the input is the prompt; with both, the input follows the prompt in a
// fenced block labelled as standard input. The fence is longer than any run
// of backticks in the input so the block cannot be closed early.
func composePrompt(arg string, in stdinResult) string {
	data := strings.TrimRight(in.Data, "\n")
	note := ""
	switch {
	case in.Truncated:
		note = fmt.Sprintf("\n(standard input was cut at %d bytes)", maxStdinBytes)
	case in.Stalled:
		note = fmt.Sprintf("\n(standard input went silent for %s and was cut there)", stdinIdle)
	}
	switch {
	case data == "":
		return arg
	case arg == "":
		return data + note
	}
	fence := "```"
	for strings.Contains(data, fence) {
		fence += "`"
	}
	return fmt.Sprintf("%s\n\nStandard input:\n%sstdin\n%s\n%s%s", arg, fence, data, fence, note)
}
