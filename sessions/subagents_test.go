package sessions_test

import (
	"context"
	"testing"

	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sessions"
)

// A subagent's session is linked to its parent and the parent's call; it
// is not listed among the sessions, not continued by -c, and its tokens
// count in its parent's subagent usage.
func TestSubagentSessionsLinkedAndHidden(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	dir := t.TempDir()
	parent, err := s.Create(ctx, sessions.NewSession{Dir: dir, Title: "parent"})
	if err != nil {
		t.Fatal(err)
	}
	child, err := s.Create(ctx, sessions.NewSession{Dir: dir, Title: "find the loader", Parent: parent.ID, ParentCallID: "call_1", Agent: "explorer"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Recorder(child.ID).RecordUsage(ctx, providers.Usage{InputTokens: 100, OutputTokens: 7}); err != nil {
		t.Fatal(err)
	}
	list, err := s.List(ctx, sessions.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].ID != parent.ID {
		t.Fatalf("List = %+v, want only the parent", list)
	}
	if latest, err := s.Latest(ctx, dir); err != nil || latest.ID != parent.ID {
		t.Fatalf("Latest = %v, %v; want the parent", latest, err)
	}
	kids, err := s.Children(ctx, parent.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(kids) != 1 || kids[0].ID != child.ID || kids[0].ParentCallID != "call_1" || kids[0].Agent != "explorer" || kids[0].Parent != parent.ID {
		t.Fatalf("Children = %+v", kids)
	}
	u, err := s.SubagentUsage(ctx, parent.ID)
	if err != nil {
		t.Fatal(err)
	}
	if u.InputTokens != 100 || u.OutputTokens != 7 {
		t.Fatalf("SubagentUsage = %+v", u)
	}
	got, err := s.Get(ctx, child.ID)
	if err != nil || got.Parent != parent.ID {
		t.Fatalf("Get(child) = %+v, %v", got, err)
	}
}

// The todo list is stored with the session and read back whole.
func TestTodosStoredWithSession(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	ss, err := s.Create(ctx, sessions.NewSession{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if todos, err := s.Todos(ctx, ss.ID); err != nil || len(todos) != 0 {
		t.Fatalf("new session's todos = %v, %v", todos, err)
	}
	want := []sessions.Todo{{Content: "read", Status: "completed"}, {Content: "write", Status: "in_progress"}}
	if err := s.SaveTodos(ctx, ss.ID, want); err != nil {
		t.Fatal(err)
	}
	got, err := s.Todos(ctx, ss.ID)
	if err != nil || len(got) != 2 || got[1] != want[1] {
		t.Fatalf("Todos = %v, %v", got, err)
	}
	if err := s.SaveTodos(ctx, "nosuchsession", want); err == nil {
		t.Fatal("SaveTodos of an unknown session succeeded")
	}
}
