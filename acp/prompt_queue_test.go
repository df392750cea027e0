package acp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/turn"
)

// blockingSession's odd turns stream a chunk and then run until they are
// cancelled; its even turns answer at once.
type blockingSession struct {
	fakeSession
	mu    sync.Mutex
	turns int
}

func (s *blockingSession) Turn(ctx context.Context, _ turn.Prompt) <-chan loop.Event {
	s.mu.Lock()
	s.turns++
	n := s.turns
	s.mu.Unlock()
	out := make(chan loop.Event, 4)
	go func() {
		defer close(out)
		if n%2 == 0 {
			out <- loop.TextDelta{Text: "second"}
			out <- loop.Done{Reason: loop.StopAnswered}
			return
		}
		out <- loop.TextDelta{Text: "first"}
		<-ctx.Done()
		out <- loop.Done{Reason: loop.StopCancelled}
	}()
	return out
}

type oneSessionBackend struct{ s Session }

func (b oneSessionBackend) NewSession(context.Context, SessionRequest) (Session, error) {
	return b.s, nil
}
func (b oneSessionBackend) LoadSession(context.Context, string, SessionRequest) (Session, error) {
	return b.s, nil
}

// rpcPeer is the client's side of a connection to Serve, in raw lines.
type rpcPeer struct {
	t   *testing.T
	w   io.WriteCloser
	sc  *bufio.Scanner
	got []map[string]any
}

func startServe(t *testing.T, b Backend) *rpcPeer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = Serve(context.Background(), Config{In: inR, Out: outW, Log: io.Discard, Backend: b, Name: "agent"})
		outW.Close()
	}()
	p := &rpcPeer{t: t, w: inW, sc: bufio.NewScanner(outR)}
	t.Cleanup(func() {
		inW.Close()
		go func() { _, _ = io.Copy(io.Discard, outR) }()
		<-done
	})
	return p
}

func (p *rpcPeer) send(v any) {
	p.t.Helper()
	b, _ := json.Marshal(v)
	if _, err := p.w.Write(append(b, '\n')); err != nil {
		p.t.Fatal(err)
	}
}

// until reads lines until one satisfies ok and returns it.
func (p *rpcPeer) until(ok func(map[string]any) bool) map[string]any {
	p.t.Helper()
	for p.sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(p.sc.Bytes(), &m); err != nil {
			p.t.Fatalf("not JSON on stdout: %q", p.sc.Text())
		}
		p.got = append(p.got, m)
		if ok(m) {
			return m
		}
	}
	p.t.Fatalf("the connection ended; got %v", p.got)
	return nil
}

func responseTo(id float64) func(map[string]any) bool {
	return func(m map[string]any) bool { return m["id"] == id && m["method"] == nil }
}

// Zed cancels a running prompt and sends the next one at once
// (session/cancel, then session/prompt) when the person sends a message
// while the agent works; the official SDK also cancels a session's running
// prompt when the next arrives. The first prompt answers cancelled and the
// second runs once the first has ended, rather than being refused.
func TestPromptWhileOneRunsRunsAfterIt(t *testing.T) {
	p := startServe(t, oneSessionBackend{&blockingSession{}})
	p.send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{"protocolVersion": 1}})
	p.until(responseTo(1))
	p.send(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": map[string]any{"cwd": "/tmp", "mcpServers": []any{}}})
	p.until(responseTo(2))
	prompt := func(id int, text string) map[string]any {
		return map[string]any{"jsonrpc": "2.0", "id": id, "method": "session/prompt",
			"params": map[string]any{"sessionId": "s", "prompt": []any{map[string]any{"type": "text", "text": text}}}}
	}
	p.send(prompt(3, "one"))
	p.until(func(m map[string]any) bool {
		return m["method"] == "session/update" && strings.Contains(toJSON(m), "first")
	})
	p.send(prompt(4, "two"))
	answers := map[float64]map[string]any{}
	for len(answers) < 2 {
		m := p.until(func(m map[string]any) bool { return m["id"] == 3.0 || m["id"] == 4.0 })
		answers[m["id"].(float64)] = m
	}
	if r, _ := answers[3]["result"].(map[string]any); r["stopReason"] != "cancelled" {
		t.Errorf("the first prompt answered %v, want stopReason cancelled", answers[3])
	}
	if r, _ := answers[4]["result"].(map[string]any); r["stopReason"] != "end_turn" {
		t.Errorf("the second prompt answered %v, want stopReason end_turn", answers[4])
	}
	// session/cancel, then the next prompt once the cancelled one has
	// answered. (Sent at once, the library may handle the notification
	// after the request, whose turn the cancel then stops: a known limit.)
	p.send(prompt(5, "three"))
	p.until(func(m map[string]any) bool {
		return m["method"] == "session/update" && strings.Contains(toJSON(m), "first")
	})
	p.send(map[string]any{"jsonrpc": "2.0", "method": "session/cancel", "params": map[string]any{"sessionId": "s"}})
	answers = map[float64]map[string]any{5: p.until(responseTo(5))}
	p.send(prompt(6, "four"))
	answers[6] = p.until(responseTo(6))
	if r, _ := answers[5]["result"].(map[string]any); r["stopReason"] != "cancelled" {
		t.Errorf("the cancelled prompt answered %v, want stopReason cancelled", answers[5])
	}
	if r, _ := answers[6]["result"].(map[string]any); r["stopReason"] != "end_turn" {
		t.Errorf("the prompt after session/cancel answered %v, want stopReason end_turn", answers[6])
	}
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
