package openai

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestWatchedBodyDropsComments(t *testing.T) {
	in := ": OPENROUTER PROCESSING\n\n:\r\ndata: {\"a\":1}\r\n\r\n: keep-alive\n\ndata:[DONE]\n\n"
	want := "\n\ndata: {\"a\":1}\r\n\r\n\ndata:[DONE]\n\n"
	for _, oneByte := range []bool{false, true} {
		st := &sseState{}
		var r io.Reader = strings.NewReader(in)
		if oneByte {
			r = iotest.OneByteReader(r)
		}
		got, err := io.ReadAll(&watchedBody{ReadCloser: io.NopCloser(r), st: st})
		if err != nil || string(got) != want {
			t.Errorf("oneByte=%v: got %q, %v; want %q", oneByte, got, err, want)
		}
		if !st.sawDone {
			t.Errorf("oneByte=%v: [DONE] not seen", oneByte)
		}
	}
}
