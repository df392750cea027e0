package tui

import (
	"context"
	"database/sql"
	"os"
	"strings"
	"testing"

	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/sessions"
)

func TestOpeningASessionInUseForksIt(t *testing.T) {
	ctx := context.Background()
	ss := storeSessions(t, fake.New(), t.TempDir())
	orig, err := ss.Store.Create(ctx, sessions.NewSession{Dir: ss.Dir, Model: "m", Title: "zebras"})
	if err != nil {
		t.Fatal(err)
	}
	rec := ss.Store.Recorder(orig.ID)
	for _, m := range []providers.Message{
		{Role: providers.RoleUser, Parts: []providers.Part{providers.Text{Text: "tell me about zebras"}}},
		{Role: providers.RoleAssistant, Parts: []providers.Part{providers.Text{Text: "Striped."}}},
	} {
		if err := rec.AppendMessage(ctx, m, providers.Usage{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := ss.Store.SetStatus(ctx, orig.ID, sessions.StatusCompleted); err != nil {
		t.Fatal(err)
	}
	// Another live process (the parent of this test) holds it.
	parent := sessions.Holder{PID: os.Getppid(), Host: sessions.Self().Host}
	if !parent.Alive() {
		t.Skip("the parent process is not visible")
	}
	db, err := sql.Open("sqlite", ss.Store.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE sessions SET holder_pid = ?, holder_start = 0, holder_host = ? WHERE id = ?`,
		parent.PID, parent.Host, orig.ID); err != nil {
		t.Fatal(err)
	}

	sess, err := ss.Open(ctx, orig.ID)
	if err != nil {
		t.Fatal(err)
	}
	if sess.ID == orig.ID || !strings.Contains(sess.Notice, "in use by process") || sess.Conv.Len() != 2 {
		t.Errorf("opened %s (%d messages), notice %q; want a fork of %s with its history", sess.ID, sess.Conv.Len(), sess.Notice, orig.ID)
	}
	// This process holds the fork: opening it again is no fork.
	again, err := ss.Open(ctx, sess.ID)
	if err != nil || again.ID != sess.ID || again.Notice != "" {
		t.Errorf("reopening the fork: %v, %+v", err, again)
	}
}
