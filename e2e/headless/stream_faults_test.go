package headless

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// retryEvents returns the retry objects of stream-json output and the
// result object.
func retryEvents(t *testing.T, stdout string) (retries []map[string]any, result map[string]any) {
	t.Helper()
	for _, o := range e2e.JSONLines(t, stdout) {
		switch o["type"] {
		case "retry":
			retries = append(retries, o)
		case "result":
			result = o
		}
	}
	return retries, result
}

func TestBrokenStreamsAreRetriedAndThePartialAnswerDiscarded(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		reply scripted.Reply
		args  []string
	}{
		{"cut", scripted.Text("this answer gets cut").WithPieceSize(5).CutAfter(2), nil},
		{"stalled", scripted.Text("this answer stalls").WithPieceSize(5).StallAfter(2), []string{"--idle-timeout", "3s"}},
		{"overloaded event", scripted.Reply{Raw: []string{`{"choices":[{"index":0,"delta":{"content":"par"}}]}`,
			`{"error":{"message":"the engine is overloaded","type":"server_error","code":"overloaded"}}`}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := scripted.New(t, tt.reply, scripted.Text("the whole answer"))
			args := append(e2e.AgentArgs(srv, "-p", "--output-format", "stream-json", "hi"), "--max-retries", "2")
			res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Args: append(args, tt.args...)})
			retries, result := retryEvents(t, res.Stdout)
			if res.Code != 0 || result["answer"] != "the whole answer" || len(srv.Requests()) != 2 {
				t.Fatalf("exit %d, result %v, %d requests; stderr %s", res.Code, result, len(srv.Requests()), res.Stderr)
			}
			if len(retries) != 1 || retries[0]["discarded"] != true {
				t.Errorf("retry events %v: want one that says the partial answer is discarded", retries)
			}
		})
	}
	t.Run("text progress says so", func(t *testing.T) {
		srv := scripted.New(t, scripted.Text("this answer gets cut").WithPieceSize(5).CutAfter(2), scripted.Text("whole"))
		res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Args: append(e2e.AgentArgs(srv, "-p", "--verbose", "hi"), "--max-retries", "1")})
		if res.Code != 0 || res.Stdout != "whole\n" || !strings.Contains(res.Stderr, "partial answer is discarded") {
			t.Errorf("exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
		}
	})
}

func TestAnErrorEventEndsTheTurnWithTheServersMessage(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.Reply{Raw: []string{`{"choices":[{"index":0,"delta":{"content":"par"}}]}`,
		`{"error":{"message":"the prompt violates a policy","type":"invalid_request_error"}}`}}, scripted.Text("must not be requested"))
	res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Args: append(e2e.AgentArgs(srv, "-p", "hi"), "--max-retries", "3")})
	if res.Code != 1 || !strings.Contains(res.Stderr, "the prompt violates a policy") || len(srv.Requests()) != 1 {
		t.Errorf("exit %d, %d requests, stderr %q", res.Code, len(srv.Requests()), res.Stderr)
	}
}

// notAnAPIServer answers every request as `python3 -m http.server` answers a
// POST: 501 with an HTML page.
func notAnAPIServer(t *testing.T) (url string, requests *atomic.Int32) {
	requests = new(atomic.Int32)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Header().Set("Content-Type", "text/html;charset=utf-8")
		status := http.StatusNotImplemented
		if r.Method == http.MethodGet {
			status = http.StatusNotFound
		}
		w.WriteHeader(status)
		io.WriteString(w, `<!DOCTYPE HTML>
<html lang="en">
    <head>
        <meta charset="utf-8">
        <title>Error response</title>
    </head>
    <body>
        <h1>Error response</h1>
        <p>Error code: 501</p>
        <p>Message: Unsupported method ('POST').</p>
    </body>
</html>
`)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, requests
}

func TestA501IsNotRetriedAndItsHTMLIsReducedToItsTitle(t *testing.T) {
	t.Parallel()
	url, requests := notAnAPIServer(t)
	res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Args: []string{"--base-url", url, "--model", "m", "--max-retries", "4", "-p", "hi"}})
	if res.Code != 1 || requests.Load() != 1 {
		t.Fatalf("exit %d after %d requests; stderr %q", res.Code, requests.Load(), res.Stderr)
	}
	if strings.Contains(res.Stderr, "<") || !strings.Contains(res.Stderr, "Error response") || !strings.Contains(res.Stderr, "501") {
		t.Errorf("stderr %q", res.Stderr)
	}
}

func TestDoctorFailsOnAServerThatDoesNotSpeakTheAPI(t *testing.T) {
	t.Parallel()
	url, _ := notAnAPIServer(t)
	res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Args: []string{"doctor", "--sandbox", "off", "--base-url", url, "--model", "m"}})
	if res.Code != 1 || !strings.Contains(res.Stdout, "NO:") || strings.Contains(res.Stdout, "<html") {
		t.Errorf("exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
	}
}
