package host_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/turn"
)

// A client (the SDK's stream) may send the same user message uuid twice:
// each prompt keeps its own restore point (under a ref of the store, so
// that no prune takes it), and rewinding the conversation past them still
// forks the session.
func TestPromptsSentWithTheSameIDEachKeepTheirCheckpoint(t *testing.T) {
	f := newFixture(t, fake.New(
		fake.ToolCalls(call("c1", "write_file", writeArgs("a.txt", "first\n"))),
		fake.Text("wrote a"),
		fake.ToolCalls(call("c2", "write_file", writeArgs("a.txt", "second\n"))),
		fake.Text("rewrote a"),
		fake.Text("third"),
	), "")
	s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeYolo})
	const id = "0f0e0d0c-0b0a-4908-8706-050403020100"
	for i, text := range []string{"write a", "rewrite a", "something"} {
		if i == 1 {
			write(t, f.path("b.txt"), "the person's\n") // so prompt 2's checkpoint is no turn's end
		}
		p := turn.Text(text)
		p.ID = id
		for ev := range s.Turn(t.Context(), p) {
			if d, ok := ev.(loop.Done); ok && d.Err != nil {
				t.Fatal(d.Err)
			}
		}
	}
	cps, err := s.Checkpoints(t.Context())
	if err != nil || len(cps) != 3 {
		t.Fatalf("checkpoints: %+v, %v", cps, err)
	}
	stores, _ := filepath.Glob(filepath.Join(filepath.Dir(f.db), "checkpoints", "*", "*"))
	if len(stores) != 1 {
		t.Fatalf("checkpoint stores: %v", stores)
	}
	out, err := exec.Command("git", "--git-dir="+stores[0], "for-each-ref", "--format=%(objectname)").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, cp := range cps {
		if !strings.Contains(string(out), cp.Tree) {
			t.Errorf("prompt %d's checkpoint %s is under no ref of the store", cp.N, cp.Tree)
		}
	}
	res, err := s.Rewind(t.Context(), host.RewindRequest{To: "3", Scope: host.ScopeConversation, Stay: true})
	if err != nil {
		t.Fatalf("rewinding the conversation to prompt 3: %v", err)
	}
	if res.Session == s.ID() {
		t.Fatal("no fork was made")
	}
}
