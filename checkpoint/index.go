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

// seedIndex copies the most recently written index of the store to index,
// so a new session's first checkpoint reads only what changed since
// another session's last one. It reports whether it did.
func (s *Store) seedIndex(index string) bool {
	dir := filepath.Dir(index)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	var newest string
	var when time.Time
	for _, e := range entries {
		fi, err := e.Info()
		// A lock is git's index being written; a dot file another
		// session's copy being made.
		if err != nil || !fi.Mode().IsRegular() || strings.HasSuffix(e.Name(), ".lock") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if fi.ModTime().After(when) {
			newest, when = e.Name(), fi.ModTime()
		}
	}
	if newest == "" {
		return false
	}
	src, err := os.Open(filepath.Join(dir, newest))
	if err != nil {
		return false
	}
	defer src.Close()
	tmp, err := os.CreateTemp(dir, ".seed-*")
	if err != nil {
		return false
	}
	_, err = io.Copy(tmp, src)
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
