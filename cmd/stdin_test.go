package cmd

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

var bg = context.Background()

func TestReadStdinIgnoresAPipeThatNeverWrites(t *testing.T) {
	r, w := io.Pipe() // the writer stays open and silent
	defer w.Close()
	res, err := readStdin(bg, r, stdinLimits{First: 50 * time.Millisecond, Idle: time.Hour, Total: time.Hour})
	if err != nil || !res.TimedOut || res.Data != "" {
		t.Fatalf("got %+v, %v; want a timeout with no data", res, err)
	}
}

func TestReadStdinReadsToEOFOnceDataFlows(t *testing.T) {
	r, w := io.Pipe()
	go func() {
		for _, s := range []string{"a", "bc", "def\n"} {
			w.Write([]byte(s))
		}
		w.Close()
	}()
	res, err := readStdin(bg, r, stdinLimits{First: time.Hour, Idle: time.Hour, Total: time.Hour})
	if err != nil || res.Data != "abcdef\n" || res.TimedOut || res.Truncated || res.Stalled {
		t.Fatalf("got %+v, %v", res, err)
	}
}

func TestReadStdinStopsWhenAnOpenPipeGoesSilent(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	go w.Write([]byte("some input\n")) // then silent, never closed
	res, err := readStdin(bg, r, stdinLimits{First: time.Hour, Idle: 50 * time.Millisecond, Total: time.Hour})
	if err != nil || res.Data != "some input\n" || !res.Stalled {
		t.Fatalf("got %+v, %v; want the data so far, marked stalled", res, err)
	}
}

func TestReadStdinBoundsAWriterThatNeverStops(t *testing.T) {
	r, w := io.Pipe()
	stop := make(chan struct{})
	defer close(stop)
	go func() { // a byte every 10 ms, never closed: tail -f
		for {
			select {
			case <-stop:
				w.Close()
				return
			case <-time.After(10 * time.Millisecond):
				w.Write([]byte("x"))
			}
		}
	}()
	start := time.Now()
	res, err := readStdin(bg, r, stdinLimits{First: time.Hour, Idle: time.Second, Total: 150 * time.Millisecond})
	if err != nil || !res.Cut || res.Stalled || res.Data == "" || time.Since(start) > 2*time.Second {
		t.Fatalf("got %+v, %v after %v; want the data so far, marked cut", res, err, time.Since(start))
	}
	if !strings.Contains(res.describe(), "still open") || !strings.Contains(composePrompt("", res), "cut there") {
		t.Errorf("describe %q, prompt %q", res.describe(), composePrompt("", res))
	}
}

func TestBinaryInput(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"plain text\nwith lines\n", ""},
		{"héllo wörld", ""},
		{"héllo wörld"[:len("héllo wörld")-1], ""}, // a rune cut by the size cap
		{"\x1f\x8b\x08\x00\x00\x00\x00\x00", "application/x-gzip"},
		{"text with a \x00 NUL", "binary data"},
		{"\xff\xfe\xfd latin bytes \xe9\xe8 and more text after them", "binary data"},
	}
	for _, tt := range tests {
		if got := binaryInput(tt.in); got != tt.want {
			t.Errorf("binaryInput(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestReadStdinStopsOnCancellation(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	ctx, cancel := context.WithCancel(bg)
	cancel()
	if _, err := readStdin(ctx, r, stdinLimits{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestReadStdinCapsLargeInput(t *testing.T) {
	res, err := readStdin(bg, strings.NewReader(strings.Repeat("x", maxStdinBytes+10)), stdinLimits{First: time.Hour, Idle: time.Hour, Total: time.Hour})
	if err != nil || len(res.Data) != maxStdinBytes || !res.Truncated {
		t.Fatalf("len=%d truncated=%v err=%v", len(res.Data), res.Truncated, err)
	}
}

func TestComposePrompt(t *testing.T) {
	tests := []struct {
		name, arg, in, want string
	}{
		{"argument only", "hi", "", "hi"},
		{"input is the prompt", "", "what is this?\n", "what is this?"},
		{"input attached in a labelled fence", "review this", "+added\n", "review this\n\nStandard input:\n```stdin\n+added\n```"},
		{"fence longer than backticks inside", "x", "a ``` b", "x\n\nStandard input:\n````stdin\na ``` b\n````"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := composePrompt(tt.arg, stdinResult{Data: tt.in}); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
