package openai

import (
	"bytes"
	"context"
	"io"
	"net/http"
)

// sseState is what the OpenAI adapter learns from one attempt's body
// besides what providers.Attempt records: whether "data: [DONE]" arrived.
type sseState struct {
	sawDone    bool // touched only by the goroutine reading the body
	linePrefix []byte
}

type sseKey struct{}

func withSSEState(ctx context.Context) (context.Context, *sseState) {
	st := &sseState{}
	return context.WithValue(ctx, sseKey{}, st), st
}

// commentFilter wraps the shared transport (providers.NewHTTPClient) and
// filters each answer's body (see watchedBody).
type commentFilter struct {
	base http.RoundTripper
}

func (t *commentFilter) RoundTrip(req *http.Request) (*http.Response, error) {
	st, _ := req.Context().Value(sseKey{}).(*sseState)
	resp, err := t.base.RoundTrip(req)
	if err != nil || st == nil {
		return resp, err
	}
	resp.Body = &watchedBody{ReadCloser: resp.Body, st: st}
	return resp, nil
}

// watchedBody notices a "data: [DONE]" line, and drops SSE comment lines
// before go-openai sees them: go-openai keeps every non-data line in an
// error buffer for the whole stream, so keep-alive comments would grow it
// without bound and hide an error event ({"error":...}) sent after them.
// The shared transport below it has already counted the bytes and reset
// the idle timer, comments included.
type watchedBody struct {
	io.ReadCloser
	st *sseState

	midLine   bool // a line has started and is not a comment
	inComment bool // the current line is a comment being dropped
}

var doneLine = []byte("data:[DONE]")

func (b *watchedBody) Read(p []byte) (int, error) {
	for {
		n, err := b.ReadCloser.Read(p)
		if n > 0 {
			n = b.filter(p[:n])
		}
		if n > 0 || err != nil {
			return n, err
		}
	}
}

// filter drops comment lines from p in place and returns the length kept.
func (b *watchedBody) filter(p []byte) int {
	st, kept := b.st, 0
	for _, c := range p {
		if c == '\n' || c == '\r' {
			if bytes.Equal(st.linePrefix, doneLine) {
				st.sawDone = true
			}
			st.linePrefix = st.linePrefix[:0]
			wasComment := b.inComment
			b.midLine, b.inComment = false, false
			if wasComment {
				continue
			}
		} else if b.inComment {
			continue
		} else if !b.midLine {
			if c == ':' {
				b.inComment = true
				continue
			}
			b.midLine = true
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' && len(st.linePrefix) <= len(doneLine) {
			st.linePrefix = append(st.linePrefix, c) // "data: [DONE]" and "data:[DONE]" are the same line
		}
		p[kept] = c
		kept++
	}
	return kept
}
