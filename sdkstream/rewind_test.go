package sdkstream

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/turn"
)

// TestReplayUserMessages: with ReplayUserMessages each user message comes
// back as the SDK's SDKUserMessageReplay with the uuid it was sent with
// (a fresh one when it had none, or one that is not a uuid), and that
// uuid is the prompt's id.
func TestReplayUserMessages(t *testing.T) {
	var mu sync.Mutex
	var ids []string
	turnFn := func(ctx context.Context, p turn.Prompt) <-chan loop.Event {
		mu.Lock()
		ids = append(ids, p.ID)
		mu.Unlock()
		return echo(ctx, p)
	}
	h := newHost(t, Config{Turn: turnFn, ReplayUserMessages: true})
	const sent = "0b6b8a64-3f5e-4b7c-9d2a-4e1f6c8d9a10"
	h.send(`{"type":"user","uuid":"` + sent + `","message":{"role":"user","content":"one"}}`)
	var replay map[string]any
	for _, m := range h.until("result") {
		if m["type"] == "user" {
			replay = m
		}
	}
	if replay == nil || replay["isReplay"] != true || replay["uuid"] != sent || replay["session_id"] != "s1" ||
		replay["parent_tool_use_id"] != nil || replay["message"].(map[string]any)["content"] != "one" {
		t.Fatalf("replay %v", replay)
	}
	h.send(`{"type":"user","uuid":"not a uuid","message":{"role":"user","content":"two"}}`)
	for _, m := range h.until("result") {
		if m["type"] == "user" {
			replay = m
		}
	}
	fresh, _ := replay["uuid"].(string)
	if !isUUID(fresh) {
		t.Errorf("the second replay's uuid %q is not a fresh uuid", fresh)
	}
	mu.Lock()
	defer mu.Unlock()
	if !reflect.DeepEqual(ids, []string{sent, fresh}) {
		t.Errorf("prompt ids %v, want [%s %s]", ids, sent, fresh)
	}
}

// TestRewindFiles: rewind_files answers the SDK's RewindFilesResult, from
// RewindFiles (a dry run passed on), or canRewind false with the reason
// when checkpointing is off or the rewind failed.
func TestRewindFiles(t *testing.T) {
	type call struct {
		id  string
		dry bool
	}
	var calls []call
	rewind := func(_ context.Context, id string, dry bool) (FilesRewound, error) {
		calls = append(calls, call{id, dry})
		if id == "unknown" {
			return FilesRewound{}, errors.New("no such checkpoint")
		}
		return FilesRewound{Files: []string{"/w/a.txt", "/w/b.txt"}, Insertions: 3, Deletions: 1}, nil
	}
	for _, tc := range []struct {
		name   string
		cfg    Config
		req    string
		want   map[string]any
		called []call
	}{
		{"off", Config{Turn: echo}, `{"subtype":"rewind_files","user_message_id":"u1"}`,
			map[string]any{"canRewind": false}, nil},
		{"dry run", Config{Turn: echo, RewindFiles: rewind}, `{"subtype":"rewind_files","user_message_id":"u1","dry_run":true}`,
			map[string]any{"canRewind": true, "filesChanged": []any{"/w/a.txt", "/w/b.txt"}, "insertions": 3.0, "deletions": 1.0},
			[]call{{"u1", true}}},
		{"rewind", Config{Turn: echo, RewindFiles: rewind}, `{"subtype":"rewind_files","user_message_id":"u1"}`,
			map[string]any{"canRewind": true, "filesChanged": []any{"/w/a.txt", "/w/b.txt"}, "insertions": 3.0, "deletions": 1.0},
			[]call{{"u1", false}}},
		{"unknown", Config{Turn: echo, RewindFiles: rewind}, `{"subtype":"rewind_files","user_message_id":"unknown"}`,
			map[string]any{"canRewind": false, "error": "no such checkpoint"}, []call{{"unknown", false}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls = nil
			h := newHost(t, tc.cfg)
			h.send(`{"type":"control_request","request_id":"r1","request":` + tc.req + `}`)
			m := h.next()
			resp := m["response"].(map[string]any)
			got, _ := resp["response"].(map[string]any)
			if resp["subtype"] != "success" || resp["request_id"] != "r1" {
				t.Fatalf("response %v", m)
			}
			if tc.name == "off" {
				if got["canRewind"] != false || got["error"] == "" || got["error"] == nil {
					t.Errorf("checkpointing off: %v", got)
				}
			} else if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
			if !reflect.DeepEqual(calls, tc.called) {
				t.Errorf("RewindFiles calls %v, want %v", calls, tc.called)
			}
		})
	}
}
