package host_test

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/sessions"
)

// writeArgs are write_file's arguments.
func writeArgs(path, content string) string {
	raw, _ := json.Marshal(map[string]string{"path": path, "content": content})
	return string(raw)
}

// bashArgs are bash's arguments.
func bashArgs(command string) string {
	raw, _ := json.Marshal(map[string]string{"command": command})
	return string(raw)
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		return "<missing>"
	}
	return string(b)
}

// twoPrompts runs two prompts: the first makes a.txt with write_file and
// changes b.txt with sed, the second makes c.txt.
func twoPrompts(t *testing.T, more ...fake.Reply) (*fixture, *host.Session) {
	t.Helper()
	return twoPromptsIn(t, host.FrontEnd{Mode: host.ModeYolo}, more...)
}

// twoPromptsIn is twoPrompts in the front-end fe.
func twoPromptsIn(t *testing.T, fe host.FrontEnd, more ...fake.Reply) (*fixture, *host.Session) {
	t.Helper()
	replies := append([]fake.Reply{
		fake.ToolCalls(call("c1", "write_file", writeArgs("a.txt", "agent a\n")), call("c2", "bash", bashArgs("sed -i s/old/new/ b.txt"))),
		fake.Text("changed a and b"),
		fake.ToolCalls(call("c3", "write_file", writeArgs("c.txt", "made c\n"))),
		fake.Text("made c"),
	}, more...)
	f := newFixture(t, fake.New(replies...), "")
	write(t, f.path("b.txt"), "old b\n")
	s := f.open(t, host.Request{}, fe)
	runTurn(t, s, "change a and b")
	runTurn(t, s, "make c")
	if read(t, f.path("a.txt")) != "agent a\n" || read(t, f.path("b.txt")) != "new b\n" || read(t, f.path("c.txt")) != "made c\n" {
		t.Fatalf("the turns did not change the files: %q %q %q", read(t, f.path("a.txt")), read(t, f.path("b.txt")), read(t, f.path("c.txt")))
	}
	return f, s
}

func TestEveryPromptIsACheckpointThatKnowsWhatItsTurnChanged(t *testing.T) {
	_, s := twoPrompts(t)
	cps, err := s.Checkpoints(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(cps) != 2 || cps[0].Prompt != "change a and b" || cps[1].Prompt != "make c" {
		t.Fatalf("checkpoints = %+v", cps)
	}
	if !slices.Equal(cps[0].Changed, []string{"a.txt", "b.txt"}) || !slices.Equal(cps[1].Changed, []string{"c.txt"}) {
		t.Errorf("changed = %v and %v, want [a.txt b.txt] (the sed's too) and [c.txt]", cps[0].Changed, cps[1].Changed)
	}
}

// Headless, a turn's checkpoints after its prompt's come from the files
// its calls wrote (no watch): a turn of file tools alone reads those
// files only, one with a command reads in full; what each changed, and a
// rewind, are as in the interface.
func TestHeadlessCheckpointsFollowTheCallsWrites(t *testing.T) {
	f, s := twoPromptsIn(t, host.FrontEnd{Name: "headless", Mode: host.ModeYolo})
	cps, err := s.Checkpoints(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(cps) != 2 || !slices.Equal(cps[0].Changed, []string{"a.txt", "b.txt"}) || !slices.Equal(cps[1].Changed, []string{"c.txt"}) {
		t.Fatalf("checkpoints = %+v, want [a.txt b.txt] (the sed's too) and [c.txt]", cps)
	}
	if _, err := s.Rewind(t.Context(), host.RewindRequest{To: "2", Scope: host.ScopeCode}); err != nil {
		t.Fatal(err)
	}
	if read(t, f.path("a.txt")) != "agent a\n" || read(t, f.path("b.txt")) != "new b\n" || read(t, f.path("c.txt")) != "<missing>" {
		t.Fatalf("back to prompt 2: a %q, b %q, c %q", read(t, f.path("a.txt")), read(t, f.path("b.txt")), read(t, f.path("c.txt")))
	}
}

func TestRewindingTheCodeRestoresWhatTheToolsAndCommandsChangedButNotThePersonsEdits(t *testing.T) {
	f, s := twoPrompts(t)
	write(t, f.path("b.txt"), "the person's b\n") // between turns: outside the agent
	preview, err := s.Rewind(t.Context(), host.RewindRequest{To: "1", Scope: host.ScopeCode, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	var plan []string
	for _, c := range preview.Plan.Changes {
		plan = append(plan, string(c.Action)+" "+c.Path)
	}
	if !slices.Equal(plan, []string{"delete a.txt", "delete c.txt"}) || len(preview.Plan.Kept) != 1 || preview.Plan.Kept[0].Path != "b.txt" {
		t.Fatalf("preview = %v, kept %+v", plan, preview.Plan.Kept)
	}
	if read(t, f.path("c.txt")) != "made c\n" {
		t.Fatal("the dry run changed a file")
	}
	id := s.ID()
	if _, err := s.Rewind(t.Context(), host.RewindRequest{To: "1", Scope: host.ScopeCode}); err != nil {
		t.Fatal(err)
	}
	if read(t, f.path("a.txt")) != "<missing>" || read(t, f.path("c.txt")) != "<missing>" || read(t, f.path("b.txt")) != "the person's b\n" {
		t.Fatalf("after the rewind: a %q, c %q, b %q", read(t, f.path("a.txt")), read(t, f.path("c.txt")), read(t, f.path("b.txt")))
	}
	if s.ID() != id || len(s.History()) != 9 {
		t.Errorf("rewinding the code changed the conversation: session %s (was %s), %d messages", s.ID(), id, len(s.History()))
	}
	// Forced, the person's change goes too; then forward to prompt 2.
	if _, err := s.Rewind(t.Context(), host.RewindRequest{To: "1", Scope: host.ScopeCode, Force: true}); err != nil {
		t.Fatal(err)
	}
	if read(t, f.path("b.txt")) != "old b\n" {
		t.Fatalf("forced: b = %q", read(t, f.path("b.txt")))
	}
	if _, err := s.Rewind(t.Context(), host.RewindRequest{To: "2", Scope: host.ScopeCode}); err != nil {
		t.Fatal(err)
	}
	if read(t, f.path("a.txt")) != "agent a\n" || read(t, f.path("b.txt")) != "new b\n" || read(t, f.path("c.txt")) != "<missing>" {
		t.Fatalf("forward to prompt 2: a %q, b %q, c %q", read(t, f.path("a.txt")), read(t, f.path("b.txt")), read(t, f.path("c.txt")))
	}
}

func TestRewindingTheConversationForksTheSessionAndKeepsTheOldBranch(t *testing.T) {
	f, s := twoPrompts(t, fake.Text("after the rewind"))
	old := s.ID()
	res, err := s.Rewind(t.Context(), host.RewindRequest{To: "2", Scope: host.ScopeBoth})
	if err != nil {
		t.Fatal(err)
	}
	if res.Session == old || s.ID() != res.Session || res.Prompt != "make c" {
		t.Fatalf("result %+v, session %s (was %s)", res, s.ID(), old)
	}
	if read(t, f.path("c.txt")) != "<missing>" {
		t.Error("both scopes: the code was not rewound")
	}
	if n := len(s.History()); n != 5 {
		t.Errorf("the fork holds %d messages, want the 5 before prompt 2", n)
	}
	runTurn(t, s, "something else")
	store := s.Store()
	branches, err := store.Branches(t.Context(), old)
	if err != nil || len(branches) != 1 || branches[0].ID != s.ID() {
		t.Fatalf("branches of %s = %+v, %v", old, branches, err)
	}
	orig, _ := store.Messages(t.Context(), old)
	if len(orig) != 9 {
		t.Errorf("the old branch has %d messages, want its 9", len(orig))
	}
	cps, _ := s.Checkpoints(t.Context())
	if len(cps) != 2 || cps[1].Prompt != "something else" {
		t.Errorf("the fork's checkpoints = %+v, want prompt 1's and its own", cps)
	}
}

func TestSummarizingFromAPromptReplacesTheRestWithTheModelsSummary(t *testing.T) {
	f, s := twoPrompts(t, fake.Text("Made c.txt."))
	res, err := s.Rewind(t.Context(), host.RewindRequest{To: "2", Scope: host.ScopeSummarize})
	if err != nil {
		t.Fatal(err)
	}
	hist := s.History()
	if res.Session != s.ID() || len(hist) != 6 || !strings.HasSuffix(hist[5].Text(), "Made c.txt.") {
		t.Fatalf("after summarizing: %d messages, last %q", len(hist), hist[len(hist)-1].Text())
	}
	reqs := f.model.Requests()
	if last := lastUser(reqs[len(reqs)-1]); !strings.Contains(last, `begins "make c"`) {
		t.Errorf("the summary request asked %q", last)
	}
	if read(t, f.path("c.txt")) != "made c\n" {
		t.Error("summarizing changed the files")
	}
}

func TestUndoWalksBackThePromptsThatChangedFiles(t *testing.T) {
	f, s := twoPrompts(t)
	id := s.ID()
	s.Close()
	res, legacy, err := f.h.Undo(t.Context(), id, false)
	if err != nil || legacy != nil {
		t.Fatal(err, legacy)
	}
	if res.Checkpoint.N != 2 || read(t, f.path("c.txt")) != "<missing>" || read(t, f.path("a.txt")) != "agent a\n" {
		t.Fatalf("first undo: to prompt %d, c %q, a %q", res.Checkpoint.N, read(t, f.path("c.txt")), read(t, f.path("a.txt")))
	}
	if _, _, err := f.h.Undo(t.Context(), id, false); err != nil {
		t.Fatal(err)
	}
	if read(t, f.path("a.txt")) != "<missing>" || read(t, f.path("b.txt")) != "old b\n" {
		t.Fatalf("second undo: a %q, b %q", read(t, f.path("a.txt")), read(t, f.path("b.txt")))
	}
	if _, _, err := f.h.Undo(t.Context(), id, false); err == nil || !strings.Contains(err.Error(), sessions.ErrNothingToUndo.Error()) {
		t.Fatalf("third undo: %v, want nothing to undo", err)
	}
}

// A session whose prompts are checkpoints keeps no undo journal: undo
// restores the checkpoints (the journal's two writes of each edit would
// never be read).
func TestASessionWithCheckpointsKeepsNoUndoJournal(t *testing.T) {
	_, s := twoPrompts(t)
	changes, err := s.Store().FileChanges(t.Context(), s.ID())
	if err != nil || len(changes) != 0 {
		t.Fatalf("the undo journal holds %+v (%v), want nothing", changes, err)
	}
}

// A subagent's work is a checkpoint of its own session too: rewinding the
// child's only prompt puts back what the child wrote.
func TestASubagentsWorkStartsWithACheckpoint(t *testing.T) {
	model := fake.NewFunc(func(req providers.Request) fake.Reply {
		child := strings.Contains(req.System, "You are a subagent")
		answered := len(toolResults(req)) > 0
		switch {
		case !child && !answered:
			return fake.ToolCalls(call("task-1", "task", `{"description":"write notes","prompt":"Write notes.txt.","agent":"writer"}`))
		case child && !answered:
			return fake.ToolCalls(call("w-1", "write_file", writeArgs("notes.txt", "child notes\n")))
		case child:
			return fake.Text("Wrote notes.txt.")
		}
		return fake.Text("The subagent wrote the notes.")
	})
	f := newFixture(t, model, "")
	write(t, f.path(".agent/agents/writer.md"), "---\nname: writer\ndescription: Writes files.\ntools: write_file\n---\nYou write files.\n")
	s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeYolo})
	runTurn(t, s, "have notes written")
	if read(t, f.path("notes.txt")) != "child notes\n" {
		t.Fatal("the child did not write the notes")
	}
	children, err := s.Store().Children(t.Context(), s.ID())
	if err != nil || len(children) != 1 {
		t.Fatalf("children: %v, %v", children, err)
	}
	cps, err := f.h.Checkpoints(t.Context(), children[0].ID)
	if err != nil || len(cps) != 1 || !slices.Equal(cps[0].Changed, []string{"notes.txt"}) {
		t.Fatalf("the child's checkpoints: %+v, %v", cps, err)
	}
	if _, err := f.h.Rewind(t.Context(), children[0].ID, host.RewindRequest{To: "1", Scope: host.ScopeCode}); err != nil {
		t.Fatal(err)
	}
	if read(t, f.path("notes.txt")) != "<missing>" {
		t.Error("rewinding the child's prompt left its file")
	}
}

// Headless, the turn's end is the tree its calls left: a file someone else
// changes while the model writes its last answer is not counted among the
// turn's changes (the next prompt's checkpoint, a full read, takes it, as
// changed outside the agent).
func TestAHeadlessTurnsEndCountsOnlyWhatItsCallsWrote(t *testing.T) {
	var f *fixture
	n := 0
	model := fake.NewFunc(func(providers.Request) fake.Reply {
		n++
		if n == 1 {
			return fake.ToolCalls(call("c1", "write_file", writeArgs("mine.txt", "the agent's\n")))
		}
		// While the last answer is written (not t's goroutine: no
		// t.Fatal here; a failed write shows as theirs.txt missing).
		os.WriteFile(f.path("theirs.txt"), []byte("someone else's\n"), 0o644)
		return fake.Text("done")
	})
	f = newFixture(t, model, "")
	s := f.open(t, host.Request{}, host.FrontEnd{Name: "headless", Mode: host.ModeYolo})
	runTurn(t, s, "write mine")
	cps, err := s.Checkpoints(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if read(t, f.path("theirs.txt")) != "someone else's\n" {
		t.Fatal("the change during the turn was not made")
	}
	if len(cps) != 1 || !slices.Equal(cps[0].Changed, []string{"mine.txt"}) {
		t.Fatalf("checkpoints = %+v, want the turn's change: mine.txt alone", cps)
	}
}
