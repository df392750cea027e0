package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agent-dev/agent/gitcmd"
)

// Forget removes session's checkpoints from the store: its refs and its
// index. The content only they held is pruned when no other session's
// checkpoint holds it: at once for loose objects older than an hour, and
// by a later Forget for younger ones (a checkpoint being taken at the
// same time may still need them).
func (s *Store) Forget(ctx context.Context, session string) error {
	if !validName(session) {
		return fmt.Errorf("forgetting the checkpoints of session %q: not a valid name", session)
	}
	s.mu.Lock()
	delete(s.sessions, session)
	w := s.watch
	s.mu.Unlock()
	if w != nil {
		w.forget(session)
	}
	g := s.git("")
	refs, err := g.Run(ctx, "for-each-ref", "--format=delete %(refname)", "refs/agent/"+session+"/")
	if err != nil {
		return fmt.Errorf("forgetting the checkpoints of session %s: %w", session, err)
	}
	if refs != "" {
		g.Stdin = strings.NewReader(refs)
		if _, err := g.Run(ctx, "update-ref", "--stdin"); err != nil {
			return fmt.Errorf("forgetting the checkpoints of session %s: %w", session, err)
		}
	}
	if s.filesRefs() {
		// Empty now, unless a ref was kept meanwhile: git removes it
		// with its last ref, but not when it was interrupted.
		os.Remove(filepath.Join(s.gitDir, "refs", "agent", session))
	}
	if err := os.Remove(s.indexOf(session)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("forgetting the checkpoints of session %s: %w", session, err)
	}
	if _, err := s.git("").Run(ctx, "prune", "--expire=1.hour.ago"); err != nil {
		return fmt.Errorf("pruning the checkpoint store: %w", err)
	}
	return nil
}

// withStdin is g reading stdin.
func withStdin(g gitcmd.Cmd, stdin io.Reader) gitcmd.Cmd {
	g.Stdin = stdin
	return g
}

// userGit is a git command on the user's repository at top, with its own
// git directory and index (read only: callers run listing commands).
func userGit(top string) gitcmd.Cmd { return gitcmd.Cmd{Dir: top} }

// sweptName is the file in the store whose time is when its sessions were
// last compared with the session database (SweepDue).
const sweptName = "swept"

// SweepDue reports whether the store's sessions were last compared with
// the session database (to forget those it no longer has) more than every
// ago, or never, and when so records now as the last time. A mark that
// cannot be read or written is due.
func (s *Store) SweepDue(every time.Duration) bool {
	p := filepath.Join(s.gitDir, sweptName)
	if fi, err := os.Stat(p); err == nil && time.Since(fi.ModTime()) < every {
		return false
	}
	now := time.Now()
	if err := os.Chtimes(p, now, now); err != nil {
		os.WriteFile(p, nil, 0o600)
	}
	return true
}
