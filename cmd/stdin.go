package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/turn"
)

// maxStdinBytes caps what is read from standard input (1 MiB); the rest is
// left unread and the prompt says it was cut.
const maxStdinBytes = 1 << 20

// stdinIdle bounds every silence of standard input once the first byte
// arrived, and the wait for a prompt that can only come from standard input.
const stdinIdle = 30 * time.Second

// stdinTotal bounds the whole read from the first byte on, so that a writer
// that never closes the pipe but sends a byte now and then (tail -f) cannot
// hang the run.
const stdinTotal = 30 * time.Second

// stdinLimits bound readStdin's waits; a zero limit waits without bound.
type stdinLimits struct {
	First time.Duration // for the first byte (or end of file)
	Idle  time.Duration // for each later byte
	Total time.Duration // for the whole read, from the first byte
}

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
	// Cut is true when the input was still open when the total limit was
	// reached; Data holds what came before.
	Cut bool
	// Limits are the limits the input was read under.
	Limits stdinLimits
	// Protocol, when not empty, says the input's first line is a protocol
	// client's message (protocolHint); reading stopped there.
	Protocol string
}

// readStdin reads piped standard input under this rule:
//
//   - It waits at most lim.First for the first byte (or end of file). A pipe
//     whose writer stays open without writing, as supervisors and CI runners
//     leave behind, is then ignored instead of hanging the run (the opencode
//     #38723 failure).
//   - Once data flows it reads to end of file, up to maxStdinBytes, but a
//     silence longer than lim.Idle, or lim.Total after the first byte, ends
//     the input with what arrived.
//   - A zero limit waits without bound. Cancelling ctx (SIGINT) stops the
//     wait and returns ctx's error.
//
// A reader that is still blocked when readStdin returns is left behind; the
// process exits without waiting for it.
func readStdin(ctx context.Context, r io.Reader, lim stdinLimits) (stdinResult, error) {
	stop := make(chan struct{})
	defer close(stop)
	chunks := readChunks(r, stop)
	var buf bytes.Buffer
	var deadline time.Time // set at the first byte when lim.Total > 0
	probed := false        // protocolHint decided on the first line
	for {
		wait, cut := lim.First, false
		if buf.Len() > 0 {
			wait = lim.Idle
			if !deadline.IsZero() {
				if left := time.Until(deadline); wait == 0 || left <= wait {
					wait, cut = max(left, time.Nanosecond), true
				}
			}
		}
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
				return stdinResult{TimedOut: true, Limits: lim}, nil
			}
			return stdinResult{Data: buf.String(), Stalled: !cut, Cut: cut, Limits: lim}, nil
		case c := <-chunks:
			if buf.Len() == 0 && len(c.data) > 0 && lim.Total > 0 {
				deadline = time.Now().Add(lim.Total)
			}
			firstLine := !probed
			buf.Write(c.data)
			if firstLine {
				hint, complete := protocolHint(buf.Bytes())
				if hint != "" {
					return stdinResult{Data: buf.String(), Protocol: hint, Limits: lim}, nil
				}
				probed = complete
			}
			if buf.Len() > maxStdinBytes {
				return stdinResult{Data: buf.String()[:maxStdinBytes], Truncated: true, Limits: lim}, nil
			}
			if errors.Is(c.err, io.EOF) {
				return stdinResult{Data: buf.String(), Limits: lim}, nil
			}
			if c.err != nil {
				return stdinResult{}, fmt.Errorf("reading standard input: %w", c.err)
			}
		}
	}
}

// chunk is one read of standard input: its bytes, and the read's error.
type chunk struct {
	data []byte
	err  error
}

// readChunks reads r in a goroutine, each read a chunk on the channel it
// returns, until a read fails (io.EOF included) or stop is closed.
func readChunks(r io.Reader, stop <-chan struct{}) <-chan chunk {
	chunks := make(chan chunk)
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
	return chunks
}

// describe says on one line what happened to the input, for stderr; empty
// when it was read whole.
func (in stdinResult) describe() string {
	switch {
	case in.Truncated:
		return fmt.Sprintf("standard input is longer than %d bytes; using the first %d", maxStdinBytes, maxStdinBytes)
	case in.Stalled:
		return fmt.Sprintf("standard input went silent for %s; using what arrived (--stdin-timeout 0 waits without limit)", in.Limits.Idle)
	case in.Cut:
		return fmt.Sprintf("standard input was still open %s after its first byte; using the %d bytes that arrived (--stdin-timeout 0 waits without limit)",
			in.Limits.Total, len(in.Data))
	}
	return ""
}

// binaryInput returns a description of data's type when it is not text
// (a NUL byte, or bytes that are not UTF-8), else "". The last bytes may
// be a rune cut by maxStdinBytes and are not held against it.
func binaryInput(data string) string {
	if data == "" {
		return ""
	}
	text := data
	for i := 0; i < utf8.UTFMax-1 && len(text) > 0 && text[len(text)-1] >= utf8.RuneSelf && !utf8.ValidString(text); i++ {
		text = text[:len(text)-1]
	}
	if !strings.ContainsRune(data, 0) && utf8.ValidString(text) {
		return ""
	}
	kind := http.DetectContentType([]byte(data))
	if strings.HasPrefix(kind, "text/") || kind == "application/octet-stream" {
		kind = "binary data"
	}
	return kind
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
		note = fmt.Sprintf("\n(standard input went silent for %s and was cut there)", in.Limits.Idle)
	case in.Cut:
		note = fmt.Sprintf("\n(standard input was still open after %s and was cut there)", in.Limits.Total)
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

// headlessPrompt composes a headless run's prompt from the argument and
// standard input; its typed part, whose @path mentions are attached, is the
// argument, or standard input when that is the whole prompt (piped input
// beside an argument is data, and its @ words stay text).
func headlessPrompt(ctx context.Context, o *Options, st Streams) (turn.Prompt, error) {
	in, err := headlessStdin(ctx, o, st)
	if err != nil {
		return turn.Prompt{}, err
	}
	prompt := composePrompt(o.Prompt, in)
	if strings.TrimSpace(prompt) == "" {
		if in.TimedOut {
			return turn.Prompt{}, usagef("%w (nothing arrived on standard input within %s)", errNoPrompt, stdinIdle)
		}
		if prompt != "" {
			return turn.Prompt{}, usagef("%w (the prompt is only white space)", errNoPrompt)
		}
		return turn.Prompt{}, usageError{Err: errNoPrompt}
	}
	p := turn.Text(prompt)
	if o.Prompt != "" {
		p.Typed = o.Prompt
	}
	if err := attachImageFiles(&p.Message, o.Images); err != nil {
		return turn.Prompt{}, err
	}
	return p, nil
}

// headlessStdin reads standard input when it is piped and not turned off.
func headlessStdin(ctx context.Context, o *Options, st Streams) (stdinResult, error) {
	if !st.InPiped || o.NoStdin {
		return stdinResult{}, nil
	}
	// With a prompt argument, stdin is optional context: a silent pipe is
	// ignored after --stdin-timeout. Without one, stdin is the prompt: it
	// may take longer to come, up to the idle limit.
	lim := stdinLimits{First: o.StdinTimeout, Idle: stdinIdle, Total: o.StdinMaxRead}
	if o.Prompt == "" {
		lim.First = stdinIdle
	}
	if o.StdinTimeout == 0 {
		lim = stdinLimits{}
	}
	if o.Verbose {
		fmt.Fprintln(st.Err, "· reading standard input (--no-stdin skips it)")
	}
	in, err := readStdin(ctx, st.In, lim)
	if err != nil {
		if ctx.Err() != nil {
			return in, turnError{loop.StopCancelled, errors.New("interrupted")}
		}
		return in, err
	}
	if in.TimedOut && o.Verbose && o.Prompt != "" {
		fmt.Fprintf(st.Err, "· standard input sent nothing within %s; ignoring it (--no-stdin skips it)\n", o.StdinTimeout)
	}
	if in.Protocol != "" {
		return in, usagef("%s", in.Protocol)
	}
	if msg := in.describe(); msg != "" {
		fmt.Fprintln(st.Err, "agent: "+msg)
	}
	if kind := binaryInput(in.Data); kind != "" {
		return in, usagef("standard input is not text (%s, %d bytes): agent sends text to the model; name the file in the prompt instead, or --no-stdin", kind, len(in.Data))
	}
	return in, nil
}
