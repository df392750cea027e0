package sessions

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// The actions of a FileRestore.
const (
	ActionRestored = "restored" // prior content and mode written back
	ActionRemoved  = "removed"  // the turn created the file; it was removed
)

// FileRestore is one file Undo put back.
type FileRestore struct {
	Path   string // slash-separated, relative to the working directory
	Action string // ActionRestored or ActionRemoved
}

// UndoResult is what Undo did.
type UndoResult struct {
	Turn int // the turn undone: seq of the user message that started it
	// Prompt is that message's number among the session's user messages
	// (1 for the first prompt), as the person counts prompts.
	Prompt   int
	Restored []FileRestore
}

// ChangedSinceError is Undo's refusal: files that changed outside the agent
// after its last change to them in the turn (or were removed). It wraps
// ErrChangedSince.
type ChangedSinceError struct {
	Turn  int
	Paths []string // sorted
}

func (e *ChangedSinceError) Error() string {
	return fmt.Sprintf("%v: %s", ErrChangedSince, strings.Join(e.Paths, ", "))
}

func (e *ChangedSinceError) Unwrap() error { return ErrChangedSince }

// Undo restores every file changed by the latest turn of session id that
// has changes not yet undone to its state before that turn: prior content
// and mode written back, files the turn created removed. Repeated calls
// walk back turn by turn.
//
// All files are checked first: if any file's content no longer matches the
// hash recorded after the agent's last change to it (it was changed or
// removed outside the agent since), Undo changes nothing and returns a
// *ChangedSinceError, which wraps ErrChangedSince and names the files. A
// change whose After was never recorded (the tool failed before writing)
// counts as undone when the file is still in its prior state, and as
// changed since otherwise.
//
// Files are read and written only through root, the working directory:
// a path that leaves it fails. A restored file is written to a temporary
// file next to it and renamed over it (written in place when the path is a
// symbolic link). If writing one fails, the files restored so far are put
// back as they were and the turn stays not undone. Directories a turn
// created are left in place.
//
// It fails with ErrNotFound for an unknown session and ErrNothingToUndo
// when no change is left to undo. Cancelling ctx stops Undo before it
// writes any file, never between two.
func (s *Store) Undo(ctx context.Context, root *os.Root, sessionID string) (UndoResult, error) {
	var res UndoResult
	var done []step // restored files, to put back if the commit fails
	err := s.write(ctx, func(tx *sql.Tx) error {
		turn, snaps, err := latestUndoable(ctx, tx, sessionID)
		if err != nil {
			return err
		}
		res.Turn = turn
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM messages WHERE session_id = ? AND role = 'user' AND seq <= ?`,
			sessionID, turn).Scan(&res.Prompt); err != nil {
			return err
		}
		steps, err := check(root, turn, snaps)
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := apply(root, steps, s.undoFault); err != nil {
			return err
		}
		done = steps
		if _, err := tx.ExecContext(ctx, `UPDATE file_snapshots SET undone = 1
			WHERE session_id = ? AND turn = ? AND undone = 0`, sessionID, turn); err != nil {
			return err
		}
		for _, st := range steps {
			if st.skip {
				continue
			}
			action := ActionRestored
			if !st.snap.existed {
				action = ActionRemoved
			}
			res.Restored = append(res.Restored, FileRestore{Path: st.snap.path, Action: action})
		}
		return nil
	})
	if err != nil {
		if done != nil {
			err = errors.Join(err, revert(root, done))
		}
		if res.Turn > 0 {
			return UndoResult{}, fmt.Errorf("undoing turn %d of session %s: %w", res.Turn, sessionID, err)
		}
		return UndoResult{}, fmt.Errorf("undoing the last turn of session %s: %w", sessionID, err)
	}
	return res, nil
}

// snapshot is a file_snapshots row.
type snapshot struct {
	path      string
	existed   bool
	prior     []byte
	mode      fs.FileMode
	afterHash sql.NullString
}

// latestUndoable returns the latest turn of the session with changes not
// yet undone, and those changes by path.
func latestUndoable(ctx context.Context, tx *sql.Tx, id string) (int, []snapshot, error) {
	var turn sql.NullInt64
	err := tx.QueryRowContext(ctx, `SELECT MAX(turn) FROM file_snapshots
		WHERE session_id = ? AND undone = 0`, id).Scan(&turn)
	if err != nil {
		return 0, nil, err
	}
	if !turn.Valid {
		if _, err := currentTurn(ctx, tx, id); err != nil {
			return 0, nil, err
		}
		return 0, nil, ErrNothingToUndo
	}
	rows, err := tx.QueryContext(ctx, `SELECT path, existed, prior_content, prior_mode, after_hash
		FROM file_snapshots WHERE session_id = ? AND turn = ? AND undone = 0 ORDER BY path`, id, turn.Int64)
	if err != nil {
		return 0, nil, err
	}
	defer rows.Close()
	var snaps []snapshot
	for rows.Next() {
		var sn snapshot
		var mode int64
		if err := rows.Scan(&sn.path, &sn.existed, &sn.prior, &mode, &sn.afterHash); err != nil {
			return 0, nil, err
		}
		sn.mode = fs.FileMode(mode)
		snaps = append(snaps, sn)
	}
	return int(turn.Int64), snaps, rows.Err()
}

// step is one file to put back, with the state it has now.
type step struct {
	snap   snapshot
	exists bool        // the file exists now
	cur    []byte      // its content now
	mode   fs.FileMode // its mode now
	link   bool        // the path is a symbolic link: write through it
	skip   bool        // already in its prior state: nothing to write
}

// check reads the current state of each snapshot's file and refuses, with
// a *ChangedSinceError, if any changed since the agent's last change.
func check(root *os.Root, turn int, snaps []snapshot) ([]step, error) {
	steps := make([]step, 0, len(snaps))
	var changed []string
	for _, sn := range snaps {
		st := step{snap: sn}
		if err := st.read(root); err != nil {
			return nil, fmt.Errorf("reading %s: %w", sn.path, err)
		}
		switch {
		case sn.afterHash.Valid:
			if !st.exists || hashOf(st.cur) != sn.afterHash.String {
				changed = append(changed, sn.path)
			}
		case st.exists == sn.existed && (!st.exists || bytes.Equal(st.cur, sn.prior)):
			st.skip = true // the change never happened
		default:
			changed = append(changed, sn.path)
		}
		steps = append(steps, st)
	}
	if changed != nil {
		return nil, &ChangedSinceError{Turn: turn, Paths: changed}
	}
	return steps, nil
}

// read fills in the current state of st's file.
func (st *step) read(root *os.Root) error {
	name := filepath.FromSlash(st.snap.path)
	fi, err := root.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		st.link = true
		if fi, err = root.Stat(name); errors.Is(err, fs.ErrNotExist) {
			return nil // a dangling link: the file is gone
		} else if err != nil {
			return err
		}
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("not a regular file (%v)", fi.Mode().Type())
	}
	if st.cur, err = root.ReadFile(name); err != nil {
		return err
	}
	st.exists, st.mode = true, fi.Mode()
	return nil
}

// apply puts each file back in its prior state. When one fails, the files
// done before it are reverted. fault, when not nil, is a test's hook that
// makes putting back a path fail.
func apply(root *os.Root, steps []step, fault func(path string) error) error {
	for i, st := range steps {
		if st.skip {
			continue
		}
		var err error
		if fault != nil {
			err = fault(st.snap.path)
		}
		if err == nil {
			err = st.restore(root)
		}
		if err != nil {
			err = fmt.Errorf("restoring %s: %w", st.snap.path, err)
			return errors.Join(err, revert(root, steps[:i]))
		}
	}
	return nil
}

// restore puts st's file back in its prior state.
func (st *step) restore(root *os.Root) error {
	if !st.snap.existed {
		return root.Remove(filepath.FromSlash(st.snap.path))
	}
	mode := st.snap.mode
	if mode.Perm() == 0 {
		mode = st.mode // unknown: keep the current mode
	}
	return writeFile(root, st.snap.path, st.snap.prior, mode, st.link)
}

// revert puts the files of steps back in the state check found them in.
func revert(root *os.Root, steps []step) error {
	var errs []error
	for _, st := range steps {
		if st.skip {
			continue
		}
		var err error
		if st.exists {
			err = writeFile(root, st.snap.path, st.cur, st.mode, st.link)
		} else {
			err = root.Remove(filepath.FromSlash(st.snap.path))
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("putting back %s after a failed undo: %w", st.snap.path, err))
		}
	}
	return errors.Join(errs...)
}

// modeBits are the bits of a file mode that Chmod sets.
const modeBits = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky

// writeFile replaces the file at the slash path p under root with data and
// mode: through a temporary file in the same directory renamed over it, or
// in place when inPlace (a symbolic link, which a rename would replace).
func writeFile(root *os.Root, p string, data []byte, mode fs.FileMode, inPlace bool) error {
	name := filepath.FromSlash(p)
	if inPlace {
		f, err := root.OpenFile(name, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			return err
		}
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		return root.Chmod(name, mode&modeBits)
	}
	var rnd [6]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return err
	}
	// Not derived from the file's name, which may be too long to extend.
	tmp := filepath.FromSlash(path.Join(path.Dir(p), ".agent-undo-"+hex.EncodeToString(rnd[:])))
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Chmod(tmp, mode&modeBits)
	}
	if err == nil {
		err = root.Rename(tmp, name)
	}
	if err != nil {
		root.Remove(tmp)
		return err
	}
	return nil
}
