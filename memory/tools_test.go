package memory

import (
	"context"
	"encoding/json"
	"github.com/agent-dev/agent/tools"
	"strings"
	"testing"

	"github.com/agent-dev/agent/tools/toolstest"
)

func TestToolsConformance(t *testing.T) {
	f := newFixture(t)
	ts := Tools(f.memory(f.root, day))
	toolstest.Run(t, toolstest.Suite{Tool: ts[0],
		SchemaInvalid: []string{`{}`, `{"query": ""}`, `{"query": "a", "max_results": 0}`, `{"query": "a", "x": 1}`},
		BadArgs:       []string{`{"query": "the"}`}})
	toolstest.Run(t, toolstest.Suite{Tool: ts[1],
		SchemaInvalid: []string{`{}`, `{"key": ""}`, `{"key": "a", "context": -1}`},
		BadArgs:       []string{`{"key": "MEMORY.md"}`, `{"key": "nosuchsession"}`, `{"key": "../x/MEMORY.md"}`}})
	toolstest.Run(t, toolstest.Suite{Tool: ts[2],
		SchemaInvalid: []string{`{}`, `{"text": ""}`, `{"text": "a", "long_term": "yes"}`},
		BadArgs:       []string{`{"text": "   "}`}})
}

// The model keeps a note with memory_write, finds it with memory_search
// and reads its file with memory_get; the session asking is left out.
func TestToolsRoundTrip(t *testing.T) {
	f := newFixture(t)
	current := f.session(t, f.root, "remember that the release branch is called trunk-stable")
	ts := Tools(f.memory(f.root, day))
	run := func(i int, args string) string {
		t.Helper()
		res, err := ts[i].Run(context.Background(), tools.Call{Session: current, Args: json.RawMessage(args)})
		if err != nil || res.IsError {
			t.Fatalf("%s %s: %v %q", ts[i].Definition().Name, args, err, res.Content)
		}
		return res.Content
	}
	if out := run(2, `{"text": "release branch: trunk-stable", "long_term": true}`); out != "Saved to MEMORY.md." {
		t.Errorf("write: %q", out)
	}
	out := run(0, `{"query": "release branch"}`)
	if !strings.HasPrefix(out, "1 result ") || !strings.Contains(out, "MEMORY.md:1") || strings.Contains(out, current) {
		t.Errorf("search:\n%s", out)
	}
	if out := run(1, `{"key": "MEMORY.md"}`); out != "- release branch: trunk-stable\n" {
		t.Errorf("get: %q", out)
	}
	if ts[0].Definition().ReadOnly != true || ts[1].Definition().ReadOnly != true || ts[2].Definition().ReadOnly {
		t.Error("search and get are read-only, write is not")
	}
}
