package cmd

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/sessions"
)

// sessions rm --older-than deletes the sessions last used before the
// age, with their subagents' sessions, keeps a session another live
// process holds (and says so), and keeps the recent ones.
func TestSessionsRmOlderThan(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "agent.db")
	s, err := sessions.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	create := func(n sessions.NewSession) string {
		t.Helper()
		n.Dir = t.TempDir()
		ss, err := s.Create(ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Release(ctx, ss.ID); err != nil {
			t.Fatal(err)
		}
		return ss.ID
	}
	old, held, recent := create(sessions.NewSession{Title: "old work"}), create(sessions.NewSession{Title: "held"}), create(sessions.NewSession{Title: "recent"})
	child := create(sessions.NewSession{Title: "a subagent", Parent: old, ParentCallID: "c1"})
	s.Close()
	raw, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	longAgo := time.Now().Add(-40 * 24 * time.Hour).UnixMilli()
	if _, err := raw.Exec(`UPDATE sessions SET updated_at = ? WHERE id IN (?, ?, ?)`, longAgo, old, held, child); err != nil {
		t.Fatal(err)
	}
	// Process 1 is alive: the held session is in use.
	if _, err := raw.Exec(`UPDATE sessions SET holder_pid = 1, holder_start = 0 WHERE id = ?`, held); err != nil {
		t.Fatal(err)
	}
	raw.Close()

	out := mustRun(t, db, "rm", "--older-than", "30d")
	for _, want := range []string{"removed session " + old, "old work", "kept session " + held + ": in use by process 1", "removed 1 session (0 messages)"} {
		if !strings.Contains(out, want) {
			t.Errorf("rm --older-than printed no %q:\n%s", want, out)
		}
	}
	s, err = sessions.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for id, want := range map[string]bool{old: false, child: false, held: true, recent: true} {
		_, err := s.Get(ctx, id)
		if kept := err == nil; kept != want || (err != nil && !errors.Is(err, sessions.ErrNotFound)) {
			t.Errorf("session %s kept %v (%v), want %v", id, kept, err, want)
		}
	}
	for _, args := range [][]string{{"rm", "--older-than", "0d"}, {"rm", "--older-than", "soon"}, {"rm", recent, "--older-than", "30d"}} {
		if _, err := runSessions(t, db, args...); exitCode(err) != ExitUsage {
			t.Errorf("sessions %v: exit %d (%v), want %d", args, exitCode(err), err, ExitUsage)
		}
	}
}
