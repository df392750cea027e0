package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// The refs that keep checkpoints, read and written in the store's own
// directory rather than through a git process each (two of a turn's
// processes and the sweep's as a session opens): git's "files" ref
// storage (gitrepository-layout(5): a ref is the file refs/NAME holding
// the object's id and a newline, written as refs/NAME.lock and renamed;
// packed-refs holds the refs packed together). A store whose config names
// another ref storage (extensions.refStorage, reftable: made by a git that
// defaults to it) is read and written through git.

// filesRefs reports whether the store keeps its refs as files.
func (s *Store) filesRefs() bool {
	s.refsOnce.Do(func() {
		b, err := os.ReadFile(filepath.Join(s.gitDir, "config"))
		s.refsAsFiles = err == nil && !namesRefStorage(b)
	})
	return s.refsAsFiles
}

// namesRefStorage reports whether a git config file may set
// extensions.refStorage (keys are case-insensitive): the store then
// reads and writes refs through git, which knows the storage it names.
func namesRefStorage(config []byte) bool {
	return bytes.Contains(bytes.ToLower(config), []byte("refstorage"))
}

// keep points refs/agent/SESSION/NAME at tree, which the store holds.
func (s *Store) keep(ctx context.Context, session, name, tree string) error {
	ref := "refs/agent/" + session + "/" + name
	if !s.filesRefs() {
		_, err := s.git("").Run(ctx, "update-ref", ref, tree)
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	p := filepath.Join(s.gitDir, filepath.FromSlash(ref))
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("keeping %s: %w", ref, err)
	}
	// git's lock: a git process updating the same ref at once fails
	// rather than racing this write.
	lock, err := os.OpenFile(p+".lock", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("keeping %s: %w", ref, err)
	}
	_, err = lock.WriteString(tree + "\n")
	if cerr := lock.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(p+".lock", p)
	}
	if err != nil {
		os.Remove(p + ".lock")
		return fmt.Errorf("keeping %s: %w", ref, err)
	}
	return nil
}

// Sessions lists the sessions that have checkpoints in the store (the
// store's own warm-up left out), in no particular order.
func (s *Store) Sessions(ctx context.Context) ([]string, error) {
	if !s.filesRefs() {
		return s.sessionsByGit(ctx)
	}
	var ids []string
	seen := map[string]bool{warmSession: true}
	add := func(id string) {
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	dirs, err := os.ReadDir(filepath.Join(s.gitDir, "refs", "agent"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("listing the checkpoint store's sessions: %w", err)
	}
	for _, d := range dirs {
		// git removes the directory of the refs it deletes (Forget
		// removes one a crash left empty).
		if d.IsDir() {
			add(d.Name())
		}
	}
	packed, err := os.ReadFile(filepath.Join(s.gitDir, "packed-refs"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("listing the checkpoint store's sessions: %w", err)
	}
	for _, line := range strings.Split(string(packed), "\n") {
		// "OID REFNAME"; '#' starts the header, '^' a peeled tag's line.
		_, ref, ok := strings.Cut(line, " ")
		if !ok || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "^") {
			continue
		}
		if id, _, ok := strings.Cut(strings.TrimPrefix(ref, "refs/agent/"), "/"); ok && strings.HasPrefix(ref, "refs/agent/") {
			add(id)
		}
	}
	return ids, nil
}

// sessionsByGit is Sessions through git for-each-ref.
func (s *Store) sessionsByGit(ctx context.Context) ([]string, error) {
	out, err := s.git("").Run(ctx, "for-each-ref", "--format=%(refname)", "refs/agent/")
	if err != nil {
		return nil, fmt.Errorf("listing the checkpoint store's sessions: %w", err)
	}
	seen := map[string]bool{}
	var ids []string
	for _, ref := range strings.Split(strings.TrimSpace(out), "\n") {
		id, _, ok := strings.Cut(strings.TrimPrefix(ref, "refs/agent/"), "/")
		if !ok || id == warmSession || seen[id] {
			continue
		}
		seen[id] = true
		ids = append(ids, id)
	}
	return ids, nil
}
