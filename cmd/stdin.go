package cmd

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// maxStdinBytes caps what is read from standard input (1 MiB); the rest is
// left unread and the prompt says it was cut.
const maxStdinBytes = 1 << 20

// stdinResult is what readStdin found.
type stdinResult struct {
	Data      string
	Truncated bool
	// TimedOut is true when nothing arrived within the first-byte timeout
	// and standard input was ignored.
	TimedOut bool
}

// readStdin reads piped standard input under this rule:
//
//   - It waits at most firstByte for the first byte (or end of file). A pipe
//     whose writer stays open without writing, as supervisors and CI runners
//     leave behind, is then ignored instead of hanging the run (the opencode
//     #38723 failure). firstByte <= 0 waits without limit.
//   - Once data flows it reads to end of file, as cat would, up to
//     maxStdinBytes; past that it stops reading and marks the input cut.
//
// A reader that is still blocked when readStdin gives up is left behind;
// the process exits without waiting for it.
func readStdin(r io.Reader, firstByte time.Duration) (stdinResult, error) {
	type chunk struct {
		data []byte
		err  error
	}
	first := make(chan chunk, 1)
	go func() {
		buf := make([]byte, 32*1024)
		n, err := r.Read(buf)
		first <- chunk{buf[:n], err}
	}()
	var timeout <-chan time.Time
	if firstByte > 0 {
		timer := time.NewTimer(firstByte)
		defer timer.Stop()
		timeout = timer.C
	}
	var c chunk
	select {
	case c = <-first:
	case <-timeout:
		return stdinResult{TimedOut: true}, nil
	}
	var buf bytes.Buffer
	buf.Write(c.data)
	if c.err == nil {
		_, c.err = io.Copy(&buf, io.LimitReader(r, maxStdinBytes+1-int64(buf.Len())))
	}
	if c.err != nil && !errors.Is(c.err, io.EOF) {
		return stdinResult{}, fmt.Errorf("reading standard input: %w", c.err)
	}
	res := stdinResult{Data: buf.String()}
	if buf.Len() > maxStdinBytes {
		res.Data, res.Truncated = res.Data[:maxStdinBytes], true
	}
	return res, nil
}

// composePrompt joins the prompt argument and piped input. With no argument
// the input is the prompt; with both, the input follows the prompt in a
// fenced block labelled as standard input. The fence is longer than any run
// of backticks in the input so the block cannot be closed early.
func composePrompt(arg string, in stdinResult) string {
	data := strings.TrimRight(in.Data, "\n")
	note := ""
	if in.Truncated {
		note = fmt.Sprintf("\n(standard input was cut at %d bytes)", maxStdinBytes)
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
