package sessions_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sessions"
)

// The journal interface of tools/fs, restated: sessions must satisfy it
// without importing it.
var _ interface {
	Before(ctx context.Context, path string, existed bool, content []byte, mode fs.FileMode) error
	After(ctx context.Context, path string, content []byte) error
} = (*sessions.FileJournal)(nil)

// workspace is a session whose working directory is a fresh temporary
// directory, opened as a root.
type workspace struct {
	s    *sessions.Store
	id   string
	dir  string
	root *os.Root
	j    *sessions.FileJournal
}

func newWorkspace(t *testing.T) *workspace {
	t.Helper()
	s := openStore(t)
	dir := filepath.Join(t.TempDir(), "work")
	must(t, os.Mkdir(dir, 0o755))
	return openWorkspace(t, s, create(t, s, dir, "").ID, dir)
}

func openWorkspace(t *testing.T, s *sessions.Store, id, dir string) *workspace {
	t.Helper()
	root, err := os.OpenRoot(dir)
	must(t, err)
	t.Cleanup(func() { root.Close() })
	return &workspace{s: s, id: id, dir: dir, root: root, j: s.Journal(id)}
}

// turn starts a turn: a user message, then an assistant reply, as the loop
// records them. It returns the turn's number (the user message's seq).
func (w *workspace) turn(t *testing.T, prompt string) int {
	t.Helper()
	ctx := context.Background()
	r := w.s.Recorder(w.id)
	must(t, r.AppendMessage(ctx, userMsg(prompt), zeroUsage))
	must(t, r.AppendMessage(ctx, assistantMsg("on it"), zeroUsage))
	recs, err := w.s.MessageRecords(ctx, w.id)
	must(t, err)
	return recs[len(recs)-2].Seq
}

// file writes a file directly (set-up, or a change outside the agent).
func (w *workspace) file(t *testing.T, name, content string, mode fs.FileMode) {
	t.Helper()
	p := filepath.Join(w.dir, filepath.FromSlash(name))
	must(t, os.MkdirAll(filepath.Dir(p), 0o755))
	must(t, os.WriteFile(p, []byte(content), mode))
	must(t, os.Chmod(p, mode))
}

// edit does what an editing tool does: reads the file's state, calls
// Before, writes the new content (and mode, when not zero), calls After.
func (w *workspace) edit(t *testing.T, name, content string, mode fs.FileMode) {
	t.Helper()
	ctx := context.Background()
	p := filepath.FromSlash(name)
	old, err := w.root.ReadFile(p)
	existed := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	var prior fs.FileMode
	if existed {
		fi, err := w.root.Stat(p)
		must(t, err)
		prior = fi.Mode()
	}
	must(t, w.j.Before(ctx, name, existed, old, prior))
	if mode == 0 {
		mode = prior
		if mode == 0 {
			mode = 0o644
		}
	}
	must(t, w.root.MkdirAll(filepath.Dir(p), 0o755))
	must(t, w.root.WriteFile(p, []byte(content), mode))
	must(t, w.root.Chmod(p, mode))
	must(t, w.j.After(ctx, name, []byte(content)))
}

func (w *workspace) read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(w.dir, filepath.FromSlash(name)))
	must(t, err)
	return string(b)
}

// treeHash hashes every entry under dir: its path, type and mode, and a
// file's content or a link's target.
func treeHash(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fmt.Fprintf(h, "%s\x00%v\x00", filepath.ToSlash(rel), fi.Mode())
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "%s\x00", target)
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "%d\x00%s", len(b), b)
		}
		return nil
	})
	must(t, err)
	return hex.EncodeToString(h.Sum(nil))
}

func TestJournalBeforeKeepsFirstState(t *testing.T) {
	ctx := context.Background()
	w := newWorkspace(t)
	w.file(t, "a.txt", "v0\n", 0o644)
	before := treeHash(t, w.dir)
	w.turn(t, "change a twice")
	w.edit(t, "a.txt", "v1\n", 0)
	w.edit(t, "./a.txt", "v2\n", 0) // the same path, spelled differently
	// A Before with other content in the same turn is a no-op too.
	must(t, w.j.Before(ctx, "a.txt", true, []byte("v2\n"), 0o644))
	must(t, w.j.After(ctx, "a.txt", []byte("v2\n")))
	var n int
	must(t, sessions.DB(w.s).QueryRow(`SELECT count(*) FROM file_snapshots`).Scan(&n))
	if n != 1 {
		t.Errorf("%d snapshot rows, want 1", n)
	}
	if _, err := w.s.Undo(ctx, w.root, w.id); err != nil {
		t.Fatal(err)
	}
	if got := w.read(t, "a.txt"); got != "v0\n" {
		t.Errorf("a.txt after undo = %q, want the state before the turn", got)
	}
	if treeHash(t, w.dir) != before {
		t.Error("tree differs from before the turn")
	}
}

func TestJournalTurnIsLatestUserMessage(t *testing.T) {
	ctx := context.Background()
	w := newWorkspace(t)
	turn := w.turn(t, "first")
	// Tool results and replies after the user message stay in its turn.
	r := w.s.Recorder(w.id)
	must(t, r.AppendMessage(ctx, toolMsg(providers.ToolResult{CallID: "c1", Content: "ok"}), zeroUsage))
	must(t, r.AppendMessage(ctx, assistantMsg("more"), zeroUsage))
	w.edit(t, "n.txt", "new", 0)
	changes, err := w.s.FileChanges(ctx, w.id)
	must(t, err)
	if len(changes) != 1 || changes[0].Turn != turn || changes[0].Path != "n.txt" || changes[0].Existed ||
		changes[0].Undone || changes[0].CreatedAt.IsZero() {
		t.Errorf("FileChanges = %+v, want n.txt created in turn %d", changes, turn)
	}
}

func TestJournalErrors(t *testing.T) {
	ctx := context.Background()
	w := newWorkspace(t)
	w.turn(t, "go")
	abs := filepath.Join(w.dir, "a.txt")
	for _, name := range []string{"", ".", "../x", "a/../../x", abs} {
		if err := w.j.Before(ctx, name, false, nil, 0); err == nil {
			t.Errorf("Before(%q): no error", name)
		}
		if err := w.j.After(ctx, name, nil); err == nil {
			t.Errorf("After(%q): no error", name)
		}
	}
	if err := w.j.After(ctx, "never.txt", []byte("x")); err == nil {
		t.Error("After without Before: no error")
	}
	gone := w.s.Journal("000000000000")
	if err := gone.Before(ctx, "a.txt", false, nil, 0); !errors.Is(err, sessions.ErrNotFound) {
		t.Errorf("Before in an unknown session: %v, want ErrNotFound", err)
	}
	if err := gone.After(ctx, "a.txt", nil); !errors.Is(err, sessions.ErrNotFound) {
		t.Errorf("After in an unknown session: %v, want ErrNotFound", err)
	}
	if _, err := w.s.FileChanges(ctx, "000000000000"); !errors.Is(err, sessions.ErrNotFound) {
		t.Errorf("FileChanges of an unknown session: %v, want ErrNotFound", err)
	}
	var n int
	must(t, sessions.DB(w.s).QueryRow(`SELECT count(*) FROM file_snapshots`).Scan(&n))
	if n != 0 {
		t.Errorf("%d snapshot rows after refused calls", n)
	}
}

func TestJournalRowsGoWithTheSession(t *testing.T) {
	ctx := context.Background()
	w := newWorkspace(t)
	w.turn(t, "go")
	w.edit(t, "a.txt", "x", 0)
	must(t, w.s.Delete(ctx, w.id))
	var n int
	must(t, sessions.DB(w.s).QueryRow(`SELECT count(*) FROM file_snapshots`).Scan(&n))
	if n != 0 {
		t.Errorf("%d snapshot rows after deleting the session", n)
	}
}

// TestMigrateV1 opens a database written at schema version 1, with
// sessions, messages and a tool call, and uses the journal on its session.
func TestMigrateV1(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "work")
	must(t, os.Mkdir(dir, 0o755))
	s := migrated(t, 1,
		`INSERT INTO sessions (id, title, dir, model, status, created_at, updated_at, message_count)
			VALUES ('0123456789ab', 'old', '`+dir+`', 'm', 'completed', 1, 2, 3)`,
		`INSERT INTO messages (session_id, seq, role, parts, created_at) VALUES
			('0123456789ab', 1, 'user', '[{"type":"text","text":"hi"}]', 1),
			('0123456789ab', 2, 'assistant', '[{"type":"text","text":"hello"}]', 1),
			('0123456789ab', 3, 'user', '[{"type":"text","text":"edit"}]', 2)`,
		`INSERT INTO tool_calls (session_id, message_id, call_id, name, arguments, status)
			VALUES ('0123456789ab', 2, 'c1', 'bash', '{}', 'completed')`,
	)
	ss, err := s.Get(ctx, "0123456789ab")
	must(t, err)
	if ss.Title != "old" || ss.Messages != 3 || ss.Status != sessions.StatusCompleted {
		t.Errorf("migrated session = %+v", ss)
	}
	recs, err := s.MessageRecords(ctx, ss.ID)
	must(t, err)
	if len(recs) != 3 || recs[2].Message.Text() != "edit" {
		t.Errorf("migrated messages = %+v", recs)
	}

	w := openWorkspace(t, s, ss.ID, dir)
	w.file(t, "a.txt", "old", 0o644)
	before := treeHash(t, dir)
	w.edit(t, "a.txt", "new", 0)
	changes, err := s.FileChanges(ctx, ss.ID)
	must(t, err)
	if len(changes) != 1 || changes[0].Turn != 3 {
		t.Errorf("FileChanges = %+v, want one change in turn 3", changes)
	}
	res, err := s.Undo(ctx, w.root, ss.ID)
	must(t, err)
	if res.Turn != 3 || treeHash(t, dir) != before {
		t.Errorf("Undo = %+v; tree restored: %v", res, treeHash(t, dir) == before)
	}
}

func TestFileChangesOrder(t *testing.T) {
	ctx := context.Background()
	w := newWorkspace(t)
	t1 := w.turn(t, "one")
	w.edit(t, "b.txt", "b", 0)
	w.edit(t, "a.txt", "a", 0)
	t2 := w.turn(t, "two")
	w.edit(t, "a.txt", "a2", 0)
	_, err := w.s.Undo(ctx, w.root, w.id)
	must(t, err)
	changes, err := w.s.FileChanges(ctx, w.id)
	must(t, err)
	type row struct {
		turn   int
		path   string
		undone bool
	}
	var got []row
	for _, c := range changes {
		got = append(got, row{c.Turn, c.Path, c.Undone})
	}
	want := []row{{t1, "a.txt", false}, {t1, "b.txt", false}, {t2, "a.txt", true}}
	if !slices.Equal(got, want) {
		t.Errorf("FileChanges = %+v, want %+v", got, want)
	}
}

func skipOnWindows(t *testing.T, why string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip(why)
	}
}
