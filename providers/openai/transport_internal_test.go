package openai

import (
	"context"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

func TestWatchedBodyDropsComments(t *testing.T) {
	in := ": OPENROUTER PROCESSING\n\n:\r\ndata: {\"a\":1}\r\n\r\n: keep-alive\n\ndata:[DONE]\n\n"
	want := "\n\ndata: {\"a\":1}\r\n\r\n\ndata:[DONE]\n\n"
	for _, oneByte := range []bool{false, true} {
		_, a, stop := startAttempt(context.Background(), time.Hour)
		var r io.Reader = strings.NewReader(in)
		if oneByte {
			r = iotest.OneByteReader(r)
		}
		got, err := io.ReadAll(&watchedBody{ReadCloser: io.NopCloser(r), a: a})
		stop()
		if err != nil || string(got) != want {
			t.Errorf("oneByte=%v: got %q, %v; want %q", oneByte, got, err, want)
		}
		if !a.sawDone || a.bodyBytes.Load() != int64(len(in)) {
			t.Errorf("oneByte=%v: sawDone %v, %d bytes", oneByte, a.sawDone, a.bodyBytes.Load())
		}
	}
}
