package checkpoint

import (
	"context"
	"os"
	"path/filepath"
	"strings"
)

// warmSession is the store's own pseudo-session: the index Warm fills,
// which a project's first session seeds its own from.
const warmSession = "_warm"

// Warm starts reading the working directory into the store when no
// session of the project has yet (its first checkpoint reads and stores
// every file, which takes seconds in a large tree), so the first prompt's
// checkpoint finds the work done: Take waits for it. It returns at once; the
// warm-up stops when ctx is cancelled, and the function it returns waits
// for it to end. Warm is called at most once per Store.
func (s *Store) Warm(ctx context.Context) (wait func()) {
	entries, _ := os.ReadDir(filepath.Join(s.gitDir, "indexes"))
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") {
			return func() {}
		}
	}
	done := make(chan struct{})
	s.mu.Lock()
	s.warm = done
	s.mu.Unlock()
	go func() {
		defer close(done)
		s.Take(ctx, warmSession, warmSession) // a failure is met again by the first prompt's
		s.mu.Lock()
		w := s.watch
		s.mu.Unlock()
		if w != nil {
			w.forget(warmSession)
		}
	}()
	return func() { <-done }
}

// waitWarm waits for the warm-up, if one runs, to end.
func (s *Store) waitWarm(ctx context.Context) error {
	s.mu.Lock()
	warm := s.warm
	s.mu.Unlock()
	if warm == nil {
		return nil
	}
	select {
	case <-warm:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
