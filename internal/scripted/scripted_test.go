package scripted_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/agent-dev/agent/internal/scripted"
)

func post(t *testing.T, ctx context.Context, url, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/chat/completions", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// dataLines returns the payloads of the data lines of an SSE body and the
// number of comment lines.
func dataLines(t *testing.T, r io.Reader) (data []string, comments int, err error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, ":"):
			comments++
		case strings.HasPrefix(line, "data: "):
			data = append(data, strings.TrimPrefix(line, "data: "))
		}
	}
	return data, comments, sc.Err()
}

func TestStreamShape(t *testing.T) {
	srv := scripted.New(t, scripted.ToolCalls(scripted.Call{ID: "glob:0", Name: "glob", Arguments: `{"p":"*"}`}).
		WithReasoning("hmm").WithComments(2))
	resp := post(t, context.Background(), srv.URL(), `{"model":"x","stream":true,"stream_options":{"include_usage":true}}`)
	data, comments, err := dataLines(t, resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if data[len(data)-1] != "[DONE]" {
		t.Errorf("last event %q", data[len(data)-1])
	}
	if want := 2 * (len(data) - 1); comments != want {
		t.Errorf("%d comments, want %d", comments, want)
	}
	var usage struct {
		Choices []any          `json:"choices"`
		Usage   map[string]any `json:"usage"`
	}
	if err := json.Unmarshal([]byte(data[len(data)-2]), &usage); err != nil || usage.Choices == nil || len(usage.Choices) != 0 || usage.Usage["prompt_tokens"] != 10.0 {
		t.Errorf("usage chunk %s (%v)", data[len(data)-2], err)
	}
	first := strings.Index(strings.Join(data, "\n"), `"content":null`)
	if first < 0 || !strings.Contains(strings.Join(data, "\n"), `"id":"glob:0"`) || strings.Count(strings.Join(data, "\n"), `"name":"glob"`) != 1 {
		t.Errorf("tool call chunks:\n%s", strings.Join(data, "\n"))
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].Chat.Model != "x" || reqs[0].Reply != 0 || reqs[0].Status != 200 {
		t.Errorf("requests = %+v", reqs)
	}
}

func TestNoUsageUnlessAsked(t *testing.T) {
	srv := scripted.New(t, scripted.Text("hi"))
	resp := post(t, context.Background(), srv.URL(), `{"model":"x","stream":true}`)
	data, _, _ := dataLines(t, resp.Body)
	for _, d := range data {
		if strings.Contains(d, "usage") {
			t.Errorf("usage sent unasked: %s", d)
		}
	}
}

func TestBeyondScript(t *testing.T) {
	srv := scripted.New(t, scripted.Text("one"))
	post(t, context.Background(), srv.URL(), `{}`)
	resp := post(t, context.Background(), srv.URL(), `{}`)
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 500 || !strings.Contains(string(body), "beyond the script") {
		t.Errorf("%d %s", resp.StatusCode, body)
	}
	if reqs := srv.Requests(); len(reqs) != 2 || reqs[1].Reply != -1 || reqs[1].Status != 500 {
		t.Errorf("requests = %+v", reqs)
	}
}

func TestRepeatLast(t *testing.T) {
	srv := scripted.NewWithOptions(t, scripted.Options{RepeatLast: true}, scripted.Text("again"))
	for range 3 {
		if resp := post(t, context.Background(), srv.URL(), `{}`); resp.StatusCode != 200 {
			t.Fatal(resp.Status)
		}
	}
}

func TestErrorReply(t *testing.T) {
	srv := scripted.New(t, scripted.Error(429, "slow down").WithRetryAfter("3"))
	resp := post(t, context.Background(), srv.URL(), `{}`)
	var body struct {
		Error struct{ Message string } `json:"error"`
	}
	json.NewDecoder(resp.Body).Decode(&body)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "3" || body.Error.Message != "slow down" {
		t.Errorf("%d %q %+v", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
}

func TestCut(t *testing.T) {
	srv := scripted.New(t, scripted.Text("abcdefghijkl").CutAfter(2))
	resp := post(t, context.Background(), srv.URL(), `{}`)
	data, _, err := dataLines(t, resp.Body)
	if !errors.Is(err, io.ErrUnexpectedEOF) || len(data) != 2 {
		t.Errorf("err %v after %d events", err, len(data))
	}
}

func TestStallEndsWithClient(t *testing.T) {
	srv := scripted.New(t, scripted.Text("abcdef").StallAfter(1))
	ctx, cancel := context.WithCancel(context.Background())
	resp := post(t, ctx, srv.URL(), `{}`)
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "data: ") {
		t.Fatalf("%q %v", line, err)
	}
	cancel() // the handler must return; Cleanup's Close would hang otherwise
}

func TestCloseEndsStalledStreams(t *testing.T) {
	srv := scripted.Start(scripted.Options{}, scripted.Text("abcdef").StallAfter(1))
	resp := post(t, context.Background(), srv.URL(), `{}`)
	r := bufio.NewReader(resp.Body)
	if _, err := r.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	srv.Close() // must not wait for the client
	if _, err := io.ReadAll(r); err == nil {
		t.Log("stream ended cleanly after Close")
	}
}
