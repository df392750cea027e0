package acp

import (
	"context"
	"errors"
	"testing"
)

// rewindSession is a session with checkpoints that records what it was
// asked.
type rewindSession struct {
	fakeSession
	got []RewindParams
}

func (s *rewindSession) RewindTo(_ context.Context, p RewindParams) (RewindResult, error) {
	s.got = append(s.got, p)
	if p.To == "9" {
		return RewindResult{}, ParamsError{Err: errors.New("prompt 9 of session s (it has 1): no such checkpoint")}
	}
	return RewindResult{Checkpoint: Checkpoint{N: 1, ID: "u1", Changed: []string{"a.txt"}}, Scope: p.Scope,
		Changes: []FileChange{{Path: "a.txt", Action: "modify", Added: 1, Removed: 1}}, Kept: []FileChange{},
		Protected: []FileChange{}, Restored: []FileChange{{Path: "a.txt", Action: "modify", Added: 1, Removed: 1}},
		SessionID: "s", ForkedSessionID: "f"}, nil
}

func (s *rewindSession) CheckpointList(context.Context) ([]Checkpoint, error) {
	return []Checkpoint{{N: 1, ID: "u1", Prompt: "edit it", Changed: []string{"a.txt"}}}, nil
}

// TestRewindExtensionMethods: _agent/rewind takes the prompt's number as a
// number or a string and answers the session's result; an unknown
// checkpoint is invalid params, an unknown session too, a session without
// checkpoints an invalid request; _agent/checkpoints lists them; another
// "_" method is not found.
func TestRewindExtensionMethods(t *testing.T) {
	sess := &rewindSession{}
	p := startServe(t, oneSessionBackend{sess})
	p.send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{"protocolVersion": 1}})
	p.until(responseTo(1))
	p.send(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": map[string]any{"cwd": "/tmp", "mcpServers": []any{}}})
	p.until(responseTo(2))
	call := func(id int, method string, params map[string]any) map[string]any {
		p.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		return p.until(responseTo(float64(id)))
	}
	r := call(3, "_agent/rewind", map[string]any{"sessionId": "s", "to": 1, "scope": "both", "dryRun": true})
	res, _ := r["result"].(map[string]any)
	if res == nil || res["forkedSessionId"] != "f" || res["sessionId"] != "s" || len(res["restored"].([]any)) != 1 ||
		res["checkpoint"].(map[string]any)["n"] != 1.0 {
		t.Errorf("_agent/rewind: %v", r)
	}
	if len(sess.got) != 1 || sess.got[0] != (RewindParams{SessionID: "s", To: "1", Scope: "both", DryRun: true}) {
		t.Errorf("the session was asked %+v", sess.got)
	}
	call(4, "_agent/rewind", map[string]any{"sessionId": "s", "to": "u1", "force": true})
	if len(sess.got) != 2 || sess.got[1] != (RewindParams{SessionID: "s", To: "u1", Force: true}) {
		t.Errorf("the session was asked %+v", sess.got)
	}
	for i, tc := range []struct {
		method string
		params map[string]any
		code   float64
	}{
		{"_agent/rewind", map[string]any{"sessionId": "s", "to": 9}, -32602},
		{"_agent/rewind", map[string]any{"sessionId": "s"}, -32602},
		{"_agent/rewind", map[string]any{"sessionId": "nope", "to": 1}, -32602},
		{"_agent/checkpoints", map[string]any{"sessionId": "nope"}, -32602},
		{"_agent/unknown", map[string]any{}, -32601},
	} {
		r := call(10+i, tc.method, tc.params)
		e, _ := r["error"].(map[string]any)
		if e == nil || e["code"] != tc.code {
			t.Errorf("%s %v: %v, want error %v", tc.method, tc.params, r, tc.code)
		}
	}
	r = call(20, "_agent/checkpoints", map[string]any{"sessionId": "s"})
	list, _ := r["result"].(map[string]any)["checkpoints"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["prompt"] != "edit it" {
		t.Errorf("_agent/checkpoints: %v", r)
	}
}

// TestRewindNeedsCheckpoints: a session that is not a Rewinder answers
// invalid request.
func TestRewindNeedsCheckpoints(t *testing.T) {
	p := startServe(t, oneSessionBackend{&fakeSession{}})
	p.send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{"protocolVersion": 1}})
	p.until(responseTo(1))
	p.send(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": map[string]any{"cwd": "/tmp", "mcpServers": []any{}}})
	p.until(responseTo(2))
	p.send(map[string]any{"jsonrpc": "2.0", "id": 3, "method": "_agent/rewind", "params": map[string]any{"sessionId": "s", "to": 1}})
	if e, _ := p.until(responseTo(3))["error"].(map[string]any); e == nil || e["code"] != -32600.0 {
		t.Errorf("a session without checkpoints: %v", e)
	}
}
