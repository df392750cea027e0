package fs

import (
	"context"
	"crypto/sha256"
	"io/fs"
	"os"
	"sync"

	"github.com/agent-dev/agent/media"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/protect"
)

// Tracker remembers, for one session, which files the model has read with
// read_file and the SHA-256 of each file's whole content at that moment. The
// changing tools consult it (write_file refuses to overwrite a file that was
// not read or changed since) and update it after their own writes, so the
// model can change a file again without reading it again. Paths are the
// clean slash paths relative to the working directory. A Tracker is safe
// for concurrent use; the zero value is not, use NewTracker.
type Tracker struct {
	mu   sync.Mutex
	sums map[string][sha256.Size]byte
	// changing serializes the changes made through this tracker, so that a
	// check of the file and the write that follows it are not interleaved
	// with another change.
	changing sync.Mutex
}

// NewTracker returns an empty tracker.
func NewTracker() *Tracker { return &Tracker{sums: map[string][sha256.Size]byte{}} }

// record notes that the content of rel, as the model knows it, hashes to sum.
func (t *Tracker) record(rel string, sum [sha256.Size]byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sums[rel] = sum
}

// Reset forgets every read: the session changed, and the model of the new
// one has read nothing yet.
func (t *Tracker) Reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	clear(t.sums)
}

// lookup returns the hash recorded for rel.
func (t *Tracker) lookup(rel string) ([sha256.Size]byte, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	sum, ok := t.sums[rel]
	return sum, ok
}

// Journal is told about every change the editing tools make, so that it can
// be shown and undone. It is declared here and satisfied elsewhere without
// importing this package.
type Journal interface {
	// Before is called before this agent changes path (slash path relative
	// to the working directory), with its content and mode before the
	// change; existed is false for a file being created. An error aborts
	// the change, which the model then reads as an error result.
	Before(ctx context.Context, path string, existed bool, content []byte, mode fs.FileMode) error
	// After is called after a change with the file's new content. It is
	// not called when writing the file failed.
	After(ctx context.Context, path string, content []byte) error
}

// Sessions is the file tools' state of each session: what the model of
// that session has read (its Tracker) and where its changes are recorded
// for undo (its Journal). One Sessions serves every session of a process:
// the interface switches sessions, an ACP client holds several, subagents
// run beside their parent; a call finds its session's state by
// tools.Call.Session. Safe for concurrent use.
type Sessions struct {
	mu       sync.Mutex
	trackers map[string]*Tracker
	journal  func(session string) Journal
}

// NewSessions returns the state of no session yet. journal gives a
// session's undo journal (nil, or a nil Journal, records nothing); it is
// asked on every change and must be safe for concurrent use.
func NewSessions(journal func(session string) Journal) *Sessions {
	return &Sessions{trackers: map[string]*Tracker{}, journal: journal}
}

// Tracker returns session's read tracker, empty the first time.
func (s *Sessions) Tracker(session string) *Tracker {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.trackers[session]
	if !ok {
		t = NewTracker()
		s.trackers[session] = t
	}
	return t
}

// Journal returns session's undo journal; nil records nothing.
func (s *Sessions) Journal(session string) Journal {
	if s.journal == nil {
		return nil
	}
	return s.journal(session)
}

// Forget drops session's tracker: a session that is closed, or started
// again, has read nothing.
func (s *Sessions) Forget(session string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.trackers, session)
}

// Options are the shared pieces of the file tools.
type Options struct {
	// Sessions holds each session's tracker and journal; nil gives the
	// tools built by one call a Sessions of their own, without journals.
	Sessions *Sessions
	// Protect refuses writes to protected paths (git metadata, the agent's
	// own files, credentials) unless the person approved the one call
	// (protect.Guard.Grant); nil protects nothing.
	Protect *protect.Guard
	// ReadDirs are folders outside the root, absolute, whose files
	// read_file reads too (read-only; the skills' folders, each confined
	// to itself).
	ReadDirs []string
	// Buffers, when not nil, is where read_file, edit_file and write_file
	// read and write file text instead of the disk (an editor's buffers);
	// paths are still checked against the root first.
	Buffers Buffers
	// ImageLimit is what read_file scales an image down to (the
	// provider's limit); zero is media.Default.
	ImageLimit media.Limit
}

// ToolsWith returns list_files, read_file, grep, edit_file and write_file,
// all confined to root and sharing opts.Sessions; read_file and grep do not
// read the credentials of opts.Protect.
func ToolsWith(root *os.Root, opts Options) []tools.Tool {
	if opts.Sessions == nil {
		opts.Sessions = NewSessions(nil)
	}
	rf, g := ReadFile(root, opts.Sessions).(*readFile), Grep(root).(*grep)
	rf.wd.protect, g.wd.protect = opts.Protect, opts.Protect
	rf.readDirs = opts.ReadDirs
	rf.wd.buffers = opts.Buffers
	rf.imageLimit = opts.ImageLimit
	return []tools.Tool{ListFiles(root), rf, g, EditFile(root, opts), WriteFile(root, opts)}
}
