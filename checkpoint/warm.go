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
// checkpoint finds the work done: Take waits for it. In a project with
// sessions, and Options.Watch, it starts the watch instead (prewatch), so
// the first prompt's checkpoint does not wait for its listing of what git
// ignores. It returns at once; the warm-up stops when ctx is cancelled, and
// the function it returns waits for it to end. Warm is called at most once
// per Store.
func (s *Store) Warm(ctx context.Context) (wait func()) {
	work := func() {
		s.Take(ctx, warmSession, warmSession) // a failure is met again by the first prompt's
		s.mu.Lock()
		w := s.watch
		s.mu.Unlock()
		if w != nil {
			w.forget(warmSession)
		}
	}
	if hasIndex(filepath.Join(s.gitDir, "indexes")) {
		if !s.watching {
			return func() {}
		}
		work = func() { s.prewatch(ctx) }
	}
	done := make(chan struct{})
	s.mu.Lock()
	s.warm = done
	s.mu.Unlock()
	go func() {
		defer close(done)
		work()
	}()
	return func() { <-done }
}

// hasIndex reports whether dir (the store's indexes) holds a session's
// index: a name that is not a dot file. It reads the directory a few
// entries at a time and stops at the first, unsorted: a daily user's
// store holds an index per session (hundreds), which os.ReadDir would
// read in full and sort at every start.
func hasIndex(dir string) bool {
	f, err := os.Open(dir)
	if err != nil {
		return false
	}
	defer f.Close()
	for {
		entries, err := f.ReadDir(16)
		for _, e := range entries {
			if !strings.HasPrefix(e.Name(), ".") {
				return true
			}
		}
		if err != nil {
			return false // io.EOF: none
		}
	}
}

// prelisted is what the watch's start listed (prewatch) for the index a
// new session of the project starts from: that index's checksum, and its
// entries git now ignores, which the session's first checkpoint would
// otherwise list again.
type prelisted struct {
	sum           [20]byte
	ignoredCached []string
}

// prewatch starts the watch with the index the project's next session
// starts from (seedIndex's), keeping what its listing said of that index.
func (s *Store) prewatch(ctx context.Context) {
	latest := s.latestIndex(filepath.Join(s.gitDir, "indexes"), "")
	if latest == "" {
		return
	}
	sum, ok := indexSum(latest)
	if !ok {
		return
	}
	g := s.git(latest)
	g.Yield = true // beside the session's start
	w, ignoredCached, listed := s.watcher(ctx, g, "")
	if w == nil || !listed {
		return
	}
	if after, ok := indexSum(latest); !ok || after != sum {
		return // written meanwhile: the listing may be of another
	}
	s.mu.Lock()
	s.pre = &prelisted{sum: sum, ignoredCached: ignoredCached}
	s.mu.Unlock()
}

// takePrelisted returns, once, what prewatch listed when index is the
// index it listed (the same checksum: a session's first index, seeded
// from it).
func (s *Store) takePrelisted(index string) ([]string, bool) {
	s.mu.Lock()
	pre := s.pre
	s.pre = nil
	s.mu.Unlock()
	if pre == nil {
		return nil, false
	}
	if sum, ok := indexSum(index); !ok || sum != pre.sum {
		return nil, false
	}
	return pre.ignoredCached, true
}

// indexSum is the checksum that ends the index file at p (its last 20
// bytes, the SHA-1 of the rest); false when it cannot be read or is null
// (index.skipHash: it names no content).
func indexSum(p string) (sum [20]byte, ok bool) {
	f, err := os.Open(p)
	if err != nil {
		return sum, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() < 32 {
		return sum, false
	}
	if _, err := f.ReadAt(sum[:], fi.Size()-20); err != nil {
		return sum, false
	}
	return sum, sum != [20]byte{}
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
