package fs

import (
	"context"
	"crypto/sha256"
	"io/fs"
	"os"
	"sync"

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

// Options are the shared pieces of a session's file tools.
type Options struct {
	// Tracker records what read_file read and what the editing tools
	// wrote. Nil means a tracker private to the tools built by one call.
	Tracker *Tracker
	// Journal is told about each change; nil records nothing.
	Journal Journal
	// Protect refuses writes to protected paths (git metadata, the agent's
	// own files, credentials) unless the person approved the one call
	// (protect.Guard.Grant); nil protects nothing.
	Protect *protect.Guard
}

// ToolsWith returns list_files, read_file, grep, edit_file and write_file,
// all confined to root and sharing one tracker and journal; read_file and
// grep do not read the credentials of opts.Protect.
func ToolsWith(root *os.Root, opts Options) []tools.Tool {
	if opts.Tracker == nil {
		opts.Tracker = NewTracker()
	}
	rf, g := ReadFile(root, opts.Tracker).(*readFile), Grep(root).(*grep)
	rf.wd.protect, g.wd.protect = opts.Protect, opts.Protect
	return []tools.Tool{ListFiles(root), rf, g, EditFile(root, opts), WriteFile(root, opts)}
}
