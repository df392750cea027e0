package sessions_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/agent-dev/agent/conversation"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sessions"
)

// setHolder makes h the holder of session id, as another process would.
func setHolder(t *testing.T, s *sessions.Store, id string, h sessions.Holder) {
	t.Helper()
	if _, err := sessions.DB(s).Exec(`UPDATE sessions SET holder_pid = ?, holder_start = ?, holder_host = ? WHERE id = ?`,
		h.PID, h.Start, h.Host, id); err != nil {
		t.Fatal(err)
	}
}

// exited returns a holder whose process has exited.
func exited(t *testing.T) sessions.Holder {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no true command:", err)
	}
	return sessions.Holder{PID: cmd.Process.Pid, Start: 1, Host: sessions.Self().Host}
}

func TestLease(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	ss := create(t, s, t.TempDir(), "")
	must(t, s.Acquire(ctx, ss.ID)) // the creator holds it already

	// Another live process on this machine holds it: the parent of this
	// test, whose start time is read the same way.
	parent := sessions.Holder{PID: os.Getppid(), Host: sessions.Self().Host}
	if !parent.Alive() {
		t.Skip("the parent process is not visible")
	}
	setHolder(t, s, ss.ID, parent)
	var le *sessions.LeaseError
	if err := s.Acquire(ctx, ss.ID); !errors.As(err, &le) || le.Holder.PID != parent.PID {
		t.Fatalf("Acquire of a held session = %v", err)
	}
	// Its process is gone: the lease is free at once.
	setHolder(t, s, ss.ID, exited(t))
	must(t, s.Acquire(ctx, ss.ID))
	// A process id reused by a later process does not hold it.
	setHolder(t, s, ss.ID, sessions.Holder{PID: parent.PID, Start: -5, Host: parent.Host})
	must(t, s.Acquire(ctx, ss.ID))
	must(t, s.Release(ctx, ss.ID))
	setHolder(t, s, ss.ID, sessions.Holder{PID: 1 << 30, Host: "another-machine"})
	if err := s.Acquire(ctx, ss.ID); !errors.As(err, &le) {
		t.Errorf("a holder on another machine is taken for alive: %v", err)
	}
	if err := s.Acquire(ctx, "nosuchsession"); !errors.Is(err, sessions.ErrNotFound) {
		t.Errorf("unknown id: %v", err)
	}
}

func TestForkCopiesTheHistory(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	ss := create(t, s, t.TempDir(), "")
	rec := s.Recorder(ss.ID)
	c1 := bashCall("c1")
	r1 := providers.ToolResult{CallID: "c1", Name: "bash", Content: "out"}
	for _, m := range []providers.Message{userMsg("go"), assistantMsg("look", c1), toolMsg(r1), assistantMsg("done"), userMsg("more"), assistantMsg("ok")} {
		must(t, rec.AppendMessage(ctx, m, providers.Usage{InputTokens: 10, OutputTokens: 1}))
	}
	must(t, rec.SaveCompaction(ctx, conversation.Compaction{FirstSeq: 5, Summary: "went and looked"}))
	must(t, rec.SavePicks(ctx, []string{"bash"}))

	// Another process holds the session, took it after message 4 and is
	// running a turn: its messages are its own.
	must(t, s.Release(ctx, ss.ID))
	if _, err := sessions.DB(s).Exec(`UPDATE sessions SET holder_pid = 1, holder_seq = 4 WHERE id = ?`, ss.ID); err != nil {
		t.Fatal(err)
	}
	running, err := s.Fork(ctx, ss.ID)
	must(t, err)
	if recs, err := s.MessageRecords(ctx, running.ID); err != nil || len(recs) != 4 || running.Messages != 4 {
		t.Errorf("a fork of a running turn has %d messages (%v), want the 4 before it", len(recs), err)
	}
	// Between turns, the whole history is copied.
	must(t, s.SetStatus(ctx, ss.ID, sessions.StatusCompleted))
	fork, err := s.Fork(ctx, ss.ID)
	must(t, err)
	if fork.ID == ss.ID || fork.Dir != ss.Dir || fork.SystemPrompt != ss.SystemPrompt || fork.Messages != 6 || fork.Usage.InputTokens != 60 {
		t.Errorf("fork %+v", fork)
	}
	want, err := s.Conversation(ctx, ss.ID)
	must(t, err)
	got, err := s.Conversation(ctx, fork.ID)
	must(t, err)
	if len(got.Messages) != len(want.Messages) || got.Compactions != 1 || len(got.Picked) != 1 || got.NextSeq != want.NextSeq {
		t.Errorf("forked conversation %+v, want %+v", got, want)
	}
	calls, err := s.ToolCalls(ctx, fork.ID)
	must(t, err)
	if len(calls) != 1 || calls[0].MessageSeq != 2 || calls[0].CallID != "c1" {
		t.Errorf("forked tool calls %+v", calls)
	}
	// The original is untouched.
	orig, err := s.MessageRecords(ctx, ss.ID)
	must(t, err)
	if len(orig) != 6 {
		t.Errorf("the original has %d messages", len(orig))
	}
}

func TestMarkInterrupted(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	mine := create(t, s, t.TempDir(), "")
	crashed := create(t, s, t.TempDir(), "")
	done := create(t, s, t.TempDir(), "")
	setHolder(t, s, crashed.ID, exited(t))
	setHolder(t, s, done.ID, exited(t))
	must(t, s.SetStatus(ctx, done.ID, sessions.StatusCompleted))

	ids, err := s.MarkInterrupted(ctx)
	must(t, err)
	if len(ids) != 1 || ids[0] != crashed.ID {
		t.Fatalf("marked %v, want only %s", ids, crashed.ID)
	}
	for id, want := range map[string]sessions.Status{mine.ID: sessions.StatusRunning, crashed.ID: sessions.StatusInterrupted, done.ID: sessions.StatusCompleted} {
		ss, err := s.Get(ctx, id)
		must(t, err)
		if ss.Status != want {
			t.Errorf("session %s: %s, want %s", id, ss.Status, want)
		}
	}
	// An interrupted session continues: its lease is free.
	must(t, s.Acquire(ctx, crashed.ID))
	must(t, s.SetStatus(ctx, crashed.ID, sessions.StatusRunning))
}

// Every start marks the sessions whose process is gone interrupted; it
// finds the running ones through an index, not by reading every session's
// row (a system prompt of kilobytes each).
func TestFindingTheRunningSessionsReadsNoOtherSession(t *testing.T) {
	s := openStore(t)
	var plan []string
	rows, err := sessions.DB(s).Query(`EXPLAIN QUERY PLAN ` + sessions.SQLRunningSessions)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if got := strings.Join(plan, "; "); !strings.Contains(got, "USING INDEX sessions_running") {
		t.Fatalf("the query plan is %q, want it through sessions_running", got)
	}
}
