package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agent-dev/agent/gitcmd"
	"github.com/fsnotify/fsnotify"
)

// maxWatchedDirs is the most directories a watcher watches; a working
// directory with more is read in full at each checkpoint.
const maxWatchedDirs = 20_000

// maxDirty is the most changed paths a checkpoint reads one by one; past
// it (a formatter that rewrote the tree) it reads the tree in full.
const maxDirty = 2_000

// syncWait is how long a checkpoint waits for the notifications of the
// changes made before it; past it, it reads the tree in full.
const syncWait = 2 * time.Second

// watcher tells which paths of the working directory changed since each
// session's last checkpoint, from the file system's notifications
// (inotify on Linux, through fsnotify), so a checkpoint reads and stores
// those paths only instead of comparing every file. It watches every
// directory git does not ignore as a whole, and the directories made
// later. Whatever it cannot vouch for (a notification queue that
// overflowed, a .gitignore changed, too many changes) sends the session's
// next checkpoint to read the tree in full.
type watcher struct {
	w      *fsnotify.Watcher
	top    string // the work tree's top level: paths are relative to it
	dir    string // the directory watched
	sync   string // a directory of the store watched too: the barrier
	prefix string // dir relative to top, slash-separated; "" when they are the same
	ignore map[string]bool

	mu      sync.Mutex
	watched map[string]bool            // the directories watched (absolute paths)
	stale   bool                       // what git ignores changed: the directories left out may be wrong
	dirty   map[string]map[string]bool // session: work-tree paths changed since its last checkpoint
	full    map[string]bool            // session: its next checkpoint reads the tree in full
	dirs    int
	ticks   map[string]chan struct{}
	// tickMu orders the renames of the tick file, whose name is tickFile
	// ("" none yet).
	tickMu   sync.Mutex
	tickFile string
	done     chan struct{}
}

// startWatch starts watching s's working directory, leaving out the
// directories ignored lists (work-tree paths); nil when it cannot (no
// notifications here, or too many directories).
func startWatch(s *Store, ignored []string) *watcher {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil
	}
	w := &watcher{w: fw, top: s.top, dir: s.dir, sync: filepath.Join(s.gitDir, "watch"), ignore: map[string]bool{},
		watched: map[string]bool{}, dirty: map[string]map[string]bool{}, full: map[string]bool{}, ticks: map[string]chan struct{}{}, done: make(chan struct{})}
	for _, d := range ignored {
		w.ignore[strings.TrimSuffix(d, "/")] = true
	}
	if err := os.MkdirAll(w.sync, 0o700); err != nil || fw.Add(w.sync) != nil || w.addTree(s.dir, false) != nil {
		fw.Close()
		return nil
	}
	// The directories between the top level and a working directory
	// beneath it hold .gitignore files that apply to it: watched for
	// those alone.
	if w.prefix = s.prefix; w.prefix != "" {
		for d := filepath.Dir(s.dir); ; d = filepath.Dir(d) {
			if err := fw.Add(d); err != nil {
				fw.Close()
				return nil
			}
			if d == s.top || d == filepath.Dir(d) {
				break
			}
		}
	}
	go w.run()
	return w
}

// close stops the watch.
func (w *watcher) close() {
	w.w.Close()
	<-w.done
	// The tick file stays, for the next watch to take over.
}

// addTree watches dir and the directories beneath it that are not
// ignored; mark marks what it finds changed (a directory made after the
// watch began: its files were made unseen).
func (w *watcher) addTree(dir string, mark bool) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			return nil // gone already: its parent's notification marked it
		}
		rel := w.rel(p)
		if mark {
			w.markAll(rel)
		}
		if !d.IsDir() {
			return nil
		}
		if d.Name() == ".git" || w.ignore[rel] {
			return filepath.SkipDir
		}
		if _, err := os.Lstat(filepath.Join(p, ".git")); err == nil && p != w.top {
			return filepath.SkipDir // a nested repository: checkpoints leave it out
		}
		w.mu.Lock()
		w.dirs++
		over := w.dirs > maxWatchedDirs
		w.mu.Unlock()
		if over {
			return errors.New("too many directories to watch")
		}
		if err := w.w.Add(p); err != nil {
			if p == dir {
				return err
			}
			return nil
		}
		w.mu.Lock()
		w.watched[p] = true
		w.mu.Unlock()
		return nil
	})
}

// rel is p relative to the work tree, slash-separated.
func (w *watcher) rel(p string) string {
	r, err := filepath.Rel(w.top, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(r)
}

// run reads the notifications until the watch is closed.
func (w *watcher) run() {
	defer close(w.done)
	for {
		select {
		case ev, ok := <-w.w.Events:
			if !ok {
				return
			}
			w.event(ev)
		case err, ok := <-w.w.Errors:
			if !ok {
				return
			}
			_ = err // an overflow, or a watch lost: nothing it says can be trusted
			w.fullAll()
		}
	}
}

// event records one notification.
func (w *watcher) event(ev fsnotify.Event) {
	if filepath.Dir(ev.Name) == w.sync {
		w.mu.Lock()
		if ch := w.ticks[filepath.Base(ev.Name)]; ch != nil {
			close(ch)
			delete(w.ticks, filepath.Base(ev.Name))
		}
		w.mu.Unlock()
		return
	}
	rel := w.rel(ev.Name)
	if w.prefix != "" && !strings.HasPrefix(rel, w.prefix+"/") {
		// Above the working directory (or the directory itself): only
		// what git ignores matters there.
		if filepath.Base(rel) == ".gitignore" {
			w.ignoreChanged()
		}
		return
	}
	for i, part := range strings.Split(rel, "/") {
		if part == ".git" {
			if i == strings.Count(rel, "/") {
				// A .git made or removed: a nested repository begins
				// or ends there, which changes what the view holds.
				w.ignoreChanged()
			}
			return
		}
	}
	if filepath.Base(rel) == ".gitignore" {
		w.ignoreChanged()
		return
	}
	w.markAll(rel)
	if ev.Has(fsnotify.Rename) || ev.Has(fsnotify.Remove) {
		w.unwatch(ev.Name)
	}
	if ev.Has(fsnotify.Create) {
		if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
			if err := w.addTree(ev.Name, true); err != nil {
				w.fullAll()
			}
		}
	}
}

// unwatch stops watching p and the directories beneath it, which was
// moved or removed: fsnotify would go on naming a moved tree's events by
// their old paths (or drop the watch of the tree where it went, when it
// sees the move after the new name was watched). The directory where it
// went, or one made in its place, is watched anew as its creation is
// seen.
func (w *watcher) unwatch(p string) {
	w.mu.Lock()
	if !w.watched[p] {
		w.mu.Unlock()
		return // a file, or a directory not watched: nothing beneath is
	}
	var gone []string
	for d := range w.watched {
		if d == p || strings.HasPrefix(d, p+string(filepath.Separator)) {
			gone = append(gone, d)
			delete(w.watched, d)
			w.dirs--
		}
	}
	w.mu.Unlock()
	for _, d := range gone {
		w.w.Remove(d) // gone already, or watched no more
	}
}

// ignoreChanged is a change of what git ignores: every session's next
// checkpoint reads the tree in full, and the watch is started again (a
// directory no longer ignored must be watched).
func (w *watcher) ignoreChanged() {
	w.fullAll()
	w.mu.Lock()
	w.stale = true
	w.mu.Unlock()
}

// isStale reports whether the watch must be started again.
func (w *watcher) isStale() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stale
}

// setFull sends session's next checkpoint to read the tree in full: the
// changes it was given were not all taken in (a checkpoint that failed).
func (w *watcher) setFull(session string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.full[session] = true
}

// markAll marks rel changed for every session.
func (w *watcher) markAll(rel string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, set := range w.dirty {
		if len(set) <= maxDirty {
			set[rel] = true
		}
	}
}

// fullAll sends every session's next checkpoint to read in full.
func (w *watcher) fullAll() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for s := range w.dirty {
		w.full[s] = true
	}
}

// begin starts collecting session's changes afresh: its checkpoint is
// about to read the tree in full.
func (w *watcher) begin(session string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.dirty[session] = map[string]bool{}
	delete(w.full, session)
}

// forget stops collecting session's changes.
func (w *watcher) forget(session string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.dirty, session)
	delete(w.full, session)
}

// changes returns the work-tree paths changed since session's last
// checkpoint, once the notifications of every change made before the
// call have been read, and starts collecting afresh. full is true when the
// checkpoint must read the tree in full instead (the session was not
// watched, the notifications cannot vouch for the changes, or too many
// changed).
func (w *watcher) changes(ctx context.Context, session string) (paths []string, full bool) {
	if err := w.barrier(ctx); err != nil {
		w.begin(session)
		return nil, true
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	set, watched := w.dirty[session]
	full = !watched || w.full[session] || len(set) > maxDirty
	w.dirty[session] = map[string]bool{}
	delete(w.full, session)
	if full {
		return nil, true
	}
	for p := range set {
		paths = append(paths, p)
	}
	return paths, false
}

// barrier returns once the watcher has read every notification queued
// before the call: it renames the watcher's tick file in the store's
// watched directory to a name of its own and waits for the notification
// of that name, which the queue delivers after them. A rename allocates
// nothing, where a file made and removed at each barrier cost an inode
// each (ext4 searches its recently freed ones).
func (w *watcher) barrier(ctx context.Context) error {
	// The process's id and a number of the process's: the directory is
	// the project's, which another watch (of this process or another)
	// may watch too.
	name := fmt.Sprintf("tick-%d-%d", os.Getpid(), tickSeq.Add(1))
	ch := make(chan struct{})
	w.mu.Lock()
	w.ticks[name] = ch
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		delete(w.ticks, name)
		w.mu.Unlock()
	}()
	if err := w.touch(name); err != nil {
		return err
	}
	t := time.NewTimer(syncWait)
	defer t.Stop()
	select {
	case <-ch:
		return nil
	case <-t.C:
		return errors.New("the file system's notifications did not arrive")
	case <-ctx.Done():
		return ctx.Err()
	case <-w.done:
		return errors.New("the watch ended")
	}
}

// tickSeq numbers the barriers of this process.
var tickSeq atomic.Int64

// touch gives the watcher's tick file the name name, taking over one an
// earlier watch left or making it when there is none; its notification is
// the barrier's. A watch taking over a file another watch still renames
// makes that one's next barrier make a file again: each barrier waits for
// a notification of its own name, which its rename queued.
func (w *watcher) touch(name string) error {
	w.tickMu.Lock()
	defer w.tickMu.Unlock()
	p := filepath.Join(w.sync, name)
	if w.tickFile == "" {
		// The tick file an earlier watch left (this process's or
		// another's, ended) is taken over rather than a file made.
		if entries, err := os.ReadDir(w.sync); err == nil {
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), "tick-") && e.Type().IsRegular() && os.Rename(filepath.Join(w.sync, e.Name()), p) == nil {
					w.tickFile = name
					return nil
				}
			}
		}
	} else if os.Rename(filepath.Join(w.sync, w.tickFile), p) == nil {
		w.tickFile = name
		return nil
	}
	if err := os.WriteFile(p, nil, 0o600); err != nil {
		return err
	}
	w.tickFile = name
	return nil
}

// watcher returns the store's watch, starting it (with session
// collecting changes from then on) when there is none yet; nil without
// Options.Watch or when no watch is possible. g is a git command on
// session's index, which names the directories git ignores as a whole:
// those are not watched. When it starts the watch (listed), the same
// listing names the index's entries git now ignores (ignoredCached), which
// take needs next.
func (s *Store) watcher(ctx context.Context, g gitcmd.Cmd, session string) (_ *watcher, ignoredCached []string, listed bool) {
	s.mu.Lock()
	w := s.watch
	if w != nil && w.isStale() {
		s.watch = nil // what git ignores changed: watched again from scratch
	} else {
		w = nil
	}
	try := s.watching && s.watch == nil && !s.watchFailed
	cur := s.watch
	s.mu.Unlock()
	if w != nil {
		w.close()
	}
	if !try {
		return cur, nil, false
	}
	out, err := g.Run(ctx, append([]string{"ls-files", "-z", "-t", "--cached", "--others", "--ignored", "--directory", "--exclude-standard", "--"}, s.pathspec()...)...)
	if err != nil {
		return nil, nil, false
	}
	var ignored []string
	for _, rec := range splitZ(out) {
		switch tag, p, _ := strings.Cut(rec, " "); {
		case tag == "H":
			ignoredCached = append(ignoredCached, p)
		case strings.HasSuffix(p, "/"):
			ignored = append(ignored, p)
		}
	}
	w = startWatch(s, ignored)
	s.mu.Lock()
	defer s.mu.Unlock()
	if w == nil || s.watch != nil || s.watchFailed {
		if w != nil {
			w.close()
		}
		s.watchFailed = s.watchFailed || w == nil
		return s.watch, ignoredCached, true
	}
	s.watch = w
	return w, ignoredCached, true
}
