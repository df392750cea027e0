package checkpoint

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The sessions' indexes and the refs that keep their checkpoints.

// Keep keeps trees (from another session's checkpoints: a fork's) under
// session's refs, name[i] for trees[i], so that they outlive the session
// they were taken in.
func (s *Store) Keep(ctx context.Context, session string, names, trees []string) error {
	if len(names) != len(trees) {
		return fmt.Errorf("keeping %d checkpoints under %d names", len(trees), len(names))
	}
	var in bytes.Buffer
	for i, t := range trees {
		if !validName(names[i]) || !validName(session) {
			return fmt.Errorf("checkpoint %q of session %q: not a valid name", names[i], session)
		}
		fmt.Fprintf(&in, "update refs/agent/%s/%s %s\n", session, names[i], t)
	}
	if in.Len() == 0 {
		return nil
	}
	if _, err := withStdin(s.git(""), &in).Run(ctx, "update-ref", "--stdin"); err != nil {
		return fmt.Errorf("keeping the checkpoints of session %s: %w", session, err)
	}
	return nil
}

// latestName is the file in the store's indexes directory that names the
// session whose index was written last (a dot file: never an index).
const latestName = ".latest"

// markLatest names session in the store's indexes directory as the one
// whose index was written last, once per process and session.
func (s *Store) markLatest(session string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.latest == session || session == warmSession {
		return
	}
	if os.WriteFile(filepath.Join(s.gitDir, "indexes", latestName), []byte(session), 0o600) == nil {
		s.latest = session
	}
}

// seedIndex copies the most recently written index of the store to index,
// so a new session's first checkpoint reads only what changed since
// another session's last one: the one markLatest named, else the newest
// file. It reports whether it did.
func (s *Store) seedIndex(index string) bool {
	latest := s.latestIndex(filepath.Dir(index), filepath.Base(index))
	return latest != "" && copyIndex(latest, index)
}

// latestIndex is the path of the index in dir (the store's indexes) a new
// session starts from: the one markLatest named, else the newest file; ""
// when there is none. except names an index passed by (the session's own).
func (s *Store) latestIndex(dir, except string) string {
	if b, err := os.ReadFile(filepath.Join(dir, latestName)); err == nil {
		if name := string(b); validName(name) && name != except {
			if fi, err := os.Stat(filepath.Join(dir, name)); err == nil && fi.Mode().IsRegular() {
				return filepath.Join(dir, name)
			}
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	var newest string
	var when time.Time
	for _, e := range entries {
		fi, err := e.Info()
		// A lock is git's index being written; a dot file another
		// session's copy being made.
		if err != nil || !fi.Mode().IsRegular() || strings.HasSuffix(e.Name(), ".lock") || strings.HasPrefix(e.Name(), ".") || e.Name() == except {
			continue
		}
		if fi.ModTime().After(when) {
			newest, when = e.Name(), fi.ModTime()
		}
	}
	if newest == "" {
		return ""
	}
	return filepath.Join(dir, newest)
}

// copyIndex gives index the content of the index at src: a hard link to
// it (no new inode, and the file keeps its time, by which git tells the
// entries it cannot trust by their stat: those as recent as it), which is
// safe because an index is only ever replaced, never written in place
// (git and gitfmt write a .lock file and rename it); else a copy through a
// temporary file.
func copyIndex(src, index string) bool {
	if os.Link(src, index) == nil {
		return true
	}
	in, err := os.Open(src)
	if err != nil {
		return false
	}
	defer in.Close()
	dir := filepath.Dir(index)
	tmp, err := os.CreateTemp(dir, ".seed-*")
	if err != nil {
		return false
	}
	_, err = io.Copy(tmp, in)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), index)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return false
	}
	return true
}
