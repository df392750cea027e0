package sessions_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-dev/agent/sessions"
)

// TestUndoTurnRestoresTree is the test: a turn edits three files
// (one of them twice, one changing its mode) and creates one; undo leaves
// the tree byte-identical to before the turn.
func TestUndoTurnRestoresTree(t *testing.T) {
	ctx := context.Background()
	w := newWorkspace(t)
	w.file(t, "a.txt", "alpha\n", 0o644)
	w.file(t, "sub/b.sh", "#!/bin/sh\necho b\n", 0o755)
	w.file(t, "c.md", "line one\r\nline two", 0o644)
	w.file(t, "untouched.txt", "same", 0o600)
	before := treeHash(t, w.dir)

	turn := w.turn(t, "edit everything")
	w.edit(t, "a.txt", "alpha, edited\n", 0)
	w.edit(t, "a.txt", "alpha, edited twice\n", 0)
	w.edit(t, "sub/b.sh", "#!/bin/sh\necho B\n", 0)
	w.edit(t, "c.md", "line one\r\nline 2\r\n", 0o600)
	w.edit(t, "sub/new.txt", "brand new\n", 0)
	if treeHash(t, w.dir) == before {
		t.Fatal("the turn changed nothing")
	}

	res, err := w.s.Undo(ctx, w.root, w.id)
	must(t, err)
	want := []sessions.FileRestore{
		{Path: "a.txt", Action: sessions.ActionRestored},
		{Path: "c.md", Action: sessions.ActionRestored},
		{Path: "sub/b.sh", Action: sessions.ActionRestored},
		{Path: "sub/new.txt", Action: sessions.ActionRemoved},
	}
	if res.Turn != turn || !slices.Equal(res.Restored, want) {
		t.Errorf("Undo = %+v, want turn %d and %+v", res, turn, want)
	}
	if treeHash(t, w.dir) != before {
		t.Error("the tree after undo differs from the tree before the turn")
	}
	leftovers, _ := filepath.Glob(filepath.Join(w.dir, ".agent-undo-*"))
	if len(leftovers) != 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
	changes, err := w.s.FileChanges(ctx, w.id)
	must(t, err)
	for _, c := range changes {
		if !c.Undone {
			t.Errorf("%s not marked undone", c.Path)
		}
	}
	if _, err := w.s.Undo(ctx, w.root, w.id); !errors.Is(err, sessions.ErrNothingToUndo) {
		t.Errorf("second Undo: %v, want ErrNothingToUndo", err)
	}
}

// TestUndoRefusesAfterOutsideChange: a file changed (or removed, or
// created again) outside the agent after the turn makes Undo refuse,
// naming the file, and change nothing.
func TestUndoRefusesAfterOutsideChange(t *testing.T) {
	for _, tt := range []struct {
		name    string
		outside func(t *testing.T, w *workspace)
		path    string
	}{
		{"edited", func(t *testing.T, w *workspace) { w.file(t, "b.txt", "b by hand\n", 0o644) }, "b.txt"},
		{"removed", func(t *testing.T, w *workspace) { must(t, os.Remove(filepath.Join(w.dir, "b.txt"))) }, "b.txt"},
		{"created file edited", func(t *testing.T, w *workspace) { w.file(t, "new.txt", "mine", 0o644) }, "new.txt"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			w := newWorkspace(t)
			w.file(t, "a.txt", "a\n", 0o644)
			w.file(t, "b.txt", "b\n", 0o644)
			w.turn(t, "edit")
			w.edit(t, "a.txt", "a2\n", 0)
			w.edit(t, "b.txt", "b2\n", 0)
			w.edit(t, "new.txt", "n\n", 0)
			tt.outside(t, w)
			changed := treeHash(t, w.dir)

			_, err := w.s.Undo(ctx, w.root, w.id)
			if !errors.Is(err, sessions.ErrChangedSince) {
				t.Fatalf("Undo: %v, want ErrChangedSince", err)
			}
			var ce *sessions.ChangedSinceError
			if !errors.As(err, &ce) || !slices.Equal(ce.Paths, []string{tt.path}) {
				t.Errorf("Undo error %#v, want it to name only %s", ce, tt.path)
			}
			if !strings.Contains(err.Error(), tt.path) {
				t.Errorf("error %q does not name %s", err, tt.path)
			}
			if treeHash(t, w.dir) != changed {
				t.Error("a refused Undo changed the tree")
			}
			changes, err := w.s.FileChanges(ctx, w.id)
			must(t, err)
			for _, c := range changes {
				if c.Undone {
					t.Errorf("%s marked undone by a refused Undo", c.Path)
				}
			}
		})
	}
}

// TestUndoWalksBackTurns: a file changed in two turns goes back one turn
// per Undo, then there is nothing left.
func TestUndoWalksBackTurns(t *testing.T) {
	ctx := context.Background()
	w := newWorkspace(t)
	w.file(t, "a.txt", "v0\n", 0o644)
	w.file(t, "b.txt", "b0\n", 0o644)
	tree0 := treeHash(t, w.dir)

	t1 := w.turn(t, "one")
	w.edit(t, "a.txt", "v1\n", 0)
	w.edit(t, "n.txt", "created in one\n", 0)
	tree1 := treeHash(t, w.dir)

	t2 := w.turn(t, "two")
	w.edit(t, "a.txt", "v2\n", 0)
	w.edit(t, "b.txt", "b2\n", 0)
	w.edit(t, "n.txt", "edited in two\n", 0)

	w.turn(t, "three: no edits")

	res, err := w.s.Undo(ctx, w.root, w.id)
	must(t, err)
	if res.Turn != t2 || res.Prompt != 2 || len(res.Restored) != 3 {
		t.Errorf("first Undo = %+v, want the 3 files of turn %d, the second prompt", res, t2)
	}
	if treeHash(t, w.dir) != tree1 {
		t.Errorf("after the first Undo the tree is not as after turn one (a.txt %q)", w.read(t, "a.txt"))
	}
	res, err = w.s.Undo(ctx, w.root, w.id)
	must(t, err)
	want := []sessions.FileRestore{{"a.txt", sessions.ActionRestored}, {"n.txt", sessions.ActionRemoved}}
	if res.Turn != t1 || res.Prompt != 1 || !slices.Equal(res.Restored, want) {
		t.Errorf("second Undo = %+v, want turn %d: %+v", res, t1, want)
	}
	if treeHash(t, w.dir) != tree0 {
		t.Error("after the second Undo the tree is not as before turn one")
	}
	if _, err := w.s.Undo(ctx, w.root, w.id); !errors.Is(err, sessions.ErrNothingToUndo) {
		t.Errorf("third Undo: %v, want ErrNothingToUndo", err)
	}
	if _, err := w.s.Undo(ctx, w.root, "000000000000"); !errors.Is(err, sessions.ErrNotFound) {
		t.Errorf("Undo of an unknown session: %v, want ErrNotFound", err)
	}
}

// TestUndoChainBrokenByOutsideChangeBetweenTurns: undoing the later turn
// brings back the outside change made before it; undoing the earlier turn
// then refuses, since it would lose that change.
func TestUndoChainBrokenByOutsideChangeBetweenTurns(t *testing.T) {
	ctx := context.Background()
	w := newWorkspace(t)
	w.file(t, "a.txt", "v0\n", 0o644)
	w.turn(t, "one")
	w.edit(t, "a.txt", "v1\n", 0)
	w.file(t, "a.txt", "v1 by hand\n", 0o644)
	w.turn(t, "two")
	w.edit(t, "a.txt", "v2\n", 0)
	_, err := w.s.Undo(ctx, w.root, w.id)
	must(t, err)
	if got := w.read(t, "a.txt"); got != "v1 by hand\n" {
		t.Errorf("a.txt = %q after undoing turn two", got)
	}
	if _, err := w.s.Undo(ctx, w.root, w.id); !errors.Is(err, sessions.ErrChangedSince) {
		t.Errorf("undoing turn one: %v, want ErrChangedSince", err)
	}
}

func TestUndoRemovesFileCreatedThenEdited(t *testing.T) {
	ctx := context.Background()
	w := newWorkspace(t)
	w.file(t, "keep.txt", "k", 0o644)
	before := treeHash(t, w.dir)
	w.turn(t, "create")
	w.edit(t, "n.txt", "first\n", 0)
	w.edit(t, "n.txt", "second\n", 0)
	res, err := w.s.Undo(ctx, w.root, w.id)
	must(t, err)
	if !slices.Equal(res.Restored, []sessions.FileRestore{{"n.txt", sessions.ActionRemoved}}) {
		t.Errorf("Undo = %+v", res)
	}
	if treeHash(t, w.dir) != before {
		t.Error("the created file was not removed")
	}
}

// TestUndoUnconfirmedChange: a Before without After (the tool failed
// before writing) is undone silently when the file is still in its prior
// state, and refused when it is not.
func TestUndoUnconfirmedChange(t *testing.T) {
	ctx := context.Background()
	w := newWorkspace(t)
	w.file(t, "a.txt", "a", 0o644)
	before := treeHash(t, w.dir)
	w.turn(t, "one")
	must(t, w.j.Before(ctx, "a.txt", true, []byte("a"), 0o644))
	must(t, w.j.Before(ctx, "gone.txt", false, nil, 0))
	w.edit(t, "b.txt", "b", 0)
	res, err := w.s.Undo(ctx, w.root, w.id)
	must(t, err)
	if !slices.Equal(res.Restored, []sessions.FileRestore{{"b.txt", sessions.ActionRemoved}}) {
		t.Errorf("Undo = %+v, want only b.txt", res)
	}
	if treeHash(t, w.dir) != before {
		t.Error("tree not restored")
	}

	w.turn(t, "two")
	must(t, w.j.Before(ctx, "a.txt", true, []byte("a"), 0o644))
	w.file(t, "a.txt", "half-written", 0o644)
	if _, err := w.s.Undo(ctx, w.root, w.id); !errors.Is(err, sessions.ErrChangedSince) {
		t.Errorf("Undo of an unconfirmed change to a file that differs: %v, want ErrChangedSince", err)
	}
}

// TestUndoThroughSymlink: a file edited through a symbolic link inside the
// working directory is restored through it; the link stays a link.
func TestUndoThroughSymlink(t *testing.T) {
	skipOnWindows(t, "symbolic links need privileges on Windows")
	ctx := context.Background()
	w := newWorkspace(t)
	w.file(t, "real.txt", "real\n", 0o644)
	must(t, os.Symlink("real.txt", filepath.Join(w.dir, "link.txt")))
	before := treeHash(t, w.dir)
	w.turn(t, "edit through the link")
	w.edit(t, "link.txt", "edited\n", 0)
	_, err := w.s.Undo(ctx, w.root, w.id)
	must(t, err)
	if treeHash(t, w.dir) != before {
		t.Error("tree not restored through the link")
	}
}

// TestUndoPathOutsideRoot: snapshot rows whose paths leave the working
// directory (impossible through the journal, so inserted directly) make
// Undo fail without touching anything outside.
func TestUndoPathOutsideRoot(t *testing.T) {
	for _, tt := range []struct {
		name, path string
		existed    bool
		link       bool
	}{
		{"restore ../x", "../x", true, false},
		{"remove ../x", "../x", false, false},
		{"remove a link to ../x", "escape", false, true},
		{"restore a link to ../x", "escape", true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.link {
				skipOnWindows(t, "symbolic links need privileges on Windows")
			}
			ctx := context.Background()
			w := newWorkspace(t)
			outside := filepath.Join(filepath.Dir(w.dir), "x")
			must(t, os.WriteFile(outside, []byte("outside"), 0o644))
			if tt.link {
				must(t, os.Symlink(filepath.Join("..", "x"), filepath.Join(w.dir, "escape")))
			}
			turn := w.turn(t, "go")
			sum := sha256.Sum256([]byte("outside"))
			var prior []byte
			if tt.existed {
				prior = []byte("overwritten")
			}
			_, err := sessions.DB(w.s).Exec(`INSERT INTO file_snapshots
				(session_id, turn, path, existed, prior_content, prior_mode, after_hash, created_at)
				VALUES (?, ?, ?, ?, ?, 420, ?, 1)`, w.id, turn, tt.path, tt.existed, prior, hex.EncodeToString(sum[:]))
			must(t, err)
			before := treeHash(t, w.dir)

			if _, err := w.s.Undo(ctx, w.root, w.id); err == nil {
				t.Fatal("Undo of a path outside the root: no error")
			} else {
				t.Log(err)
			}
			b, err := os.ReadFile(outside)
			must(t, err)
			if string(b) != "outside" {
				t.Errorf("the file outside the root was changed to %q", b)
			}
			if treeHash(t, w.dir) != before {
				t.Error("the working directory was changed")
			}
		})
	}
}

// TestUndoFailureRevertsRestoredFiles: when putting back one file fails,
// the files already put back return to their state after the turn and the
// turn stays undoable.
func TestUndoFailureRevertsRestoredFiles(t *testing.T) {
	ctx := context.Background()
	w := newWorkspace(t)
	w.file(t, "a.txt", "a\n", 0o644)
	w.file(t, "c.txt", "c\n", 0o644)
	before := treeHash(t, w.dir)
	w.turn(t, "edit")
	w.edit(t, "a.txt", "a2\n", 0o600)
	w.edit(t, "b.txt", "created\n", 0)
	w.edit(t, "c.txt", "c2\n", 0)
	after := treeHash(t, w.dir)

	sessions.SetUndoFault(w.s, func(p string) error {
		if p == "c.txt" {
			return errors.New("disk on fire")
		}
		return nil
	})
	if _, err := w.s.Undo(ctx, w.root, w.id); err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("Undo with a failing write: %v", err)
	}
	if treeHash(t, w.dir) != after {
		t.Error("a failed Undo left the tree changed")
	}
	sessions.SetUndoFault(w.s, nil)
	if _, err := w.s.Undo(ctx, w.root, w.id); err != nil {
		t.Fatalf("Undo after the failure: %v", err)
	}
	if treeHash(t, w.dir) != before {
		t.Error("tree not restored")
	}
}

// TestUndoLongFileName: the temporary file's name does not grow with the
// restored file's.
func TestUndoLongFileName(t *testing.T) {
	ctx := context.Background()
	w := newWorkspace(t)
	name := strings.Repeat("n", 250) + ".txt"
	w.file(t, name, "old", 0o644)
	before := treeHash(t, w.dir)
	w.turn(t, "edit")
	w.edit(t, name, "new", 0)
	_, err := w.s.Undo(ctx, w.root, w.id)
	must(t, err)
	if treeHash(t, w.dir) != before {
		t.Error("tree not restored")
	}
}
