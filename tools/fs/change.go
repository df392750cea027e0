package fs

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/agent-dev/agent/media"
	"io/fs"
	"os"
	"strings"

	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/protect"
)

// editMax is the largest file the editing tools change, in bytes; they hold
// it in memory twice.
const editMax = 64 << 20

// change is one file change worked out and not yet made.
type change struct {
	rel     string      // slash path relative to the working directory
	existed bool        // the file exists (else it is created)
	link    bool        // rel is a symlink, written through to its target
	t       *target     // rel resolved once: its check and its write go through it
	mode    fs.FileMode // mode to keep; 0 for a new file
	before  []byte      // content before, nil for a new file
	after   []byte      // content after
	note    string      // what the change was, for the model ("2 replacements")
	edits   []lineEdit  // the line edits from before to after, when known
	verb    string      // "Edited" or "Wrote", for the model
}

// editor holds what edit_file and write_file share.
type editor struct {
	wd       *workdir
	sessions *Sessions
	protect  *protect.Guard
}

func newEditor(root *os.Root, opts Options) editor {
	if opts.Sessions == nil {
		opts.Sessions = NewSessions(nil)
	}
	wd := newWorkdir(root)
	wd.buffers, wd.protect = opts.Buffers, opts.Protect
	return editor{wd: wd, sessions: opts.Sessions, protect: opts.Protect}
}

// planFunc works out a change from a tool's arguments. A problem the model
// can fix is an error Result; a Go error is a broken machine or a cancelled
// context.
// tr is the tracker of the call's session.
type planFunc func(ctx context.Context, tr *Tracker, raw json.RawMessage) (*change, *tools.Result, error)

// preview returns what run would report, without changing anything.
func (e editor) preview(ctx context.Context, call tools.Call, plan planFunc) (tools.Result, error) {
	c, bad, err := plan(ctx, e.sessions.Tracker(call.Session), call.Args)
	if err != nil || bad != nil {
		return deref(bad), err
	}
	defer c.t.close()
	res := c.result()
	res.Content = "(preview) " + res.Content
	if risk := e.risk(c); risk != "" {
		res.Meta[tools.MetaProtected] = risk
	}
	return res, nil
}

// run works out the change and makes it: it tells the journal, writes the
// file and records the new content in the tracker.
func (e editor) run(ctx context.Context, call tools.Call, plan planFunc) (tools.Result, error) {
	if err := ctx.Err(); err != nil {
		return tools.Result{}, err
	}
	tracker, journal := e.sessions.Tracker(call.Session), e.sessions.Journal(call.Session)
	tracker.changing.Lock()
	defer tracker.changing.Unlock()
	c, bad, err := plan(ctx, tracker, call.Args)
	if err != nil || bad != nil {
		return deref(bad), err
	}
	defer c.t.close()
	if err := ctx.Err(); err != nil {
		return tools.Result{}, err
	}
	if risk := e.risk(c); risk != "" && !e.protect.Take(c.rel) {
		return tools.Errorf("%s was not changed: it is protected (%s). The file tools write there only when the user approves that one call; do not try another way (bash, a symlink, a copy): tell the user what you wanted to change and why.", c.rel, risk), nil
	}
	res := c.result()
	if bytes.Equal(c.before, c.after) && c.existed {
		tracker.record(c.rel, sha256.Sum256(c.after))
		return res, nil
	}
	if journal != nil {
		if err := journal.Before(ctx, c.rel, c.existed, c.before, c.mode); err != nil {
			return tools.Errorf("%s was not changed: saving its prior state for undo failed: %v", c.rel, err), nil
		}
	}
	handled, err := e.writeBuffer(ctx, c)
	if !handled {
		err = e.write(c)
	}
	if err != nil {
		return tools.Errorf("%s was not changed: %s", c.rel, describeWrite(c.rel, err)), nil
	}
	tracker.record(c.rel, sha256.Sum256(c.after))
	if journal != nil {
		// The file has changed: its record must be written even if the turn
		// is being cancelled, or undo would take it for an outside change.
		if err := journal.After(context.WithoutCancel(ctx), c.rel, c.after); err != nil {
			res.Content += fmt.Sprintf(" (the change was made, but recording it for undo failed: %v)", err)
			res.Meta["journal_error"] = err.Error()
		}
	}
	return res, nil
}

func deref(r *tools.Result) tools.Result {
	if r == nil {
		return tools.Result{}
	}
	return *r
}

// result is what the model and the person see of c.
func (c *change) result() tools.Result {
	from := "a/" + c.rel
	if !c.existed {
		from = "/dev/null"
	}
	var edits []lineEdit
	if c.existed {
		edits = c.lineEdits()
	} else if len(c.after) > 0 {
		edits = []lineEdit{{new: string(c.after)}}
	}
	diff, added, removed := unifiedDiff(from, "b/"+c.rel, string(c.before), edits)
	var text string
	switch {
	case !c.existed:
		text = fmt.Sprintf("Created %s (%d lines)", c.rel, len(splitLines(string(c.after))))
	case bytes.Equal(c.before, c.after):
		text = fmt.Sprintf("%s unchanged: the new content is the same as the old", c.rel)
	case c.note != "":
		text = fmt.Sprintf("%s %s: %s, +%d -%d lines", c.verb, c.rel, c.note, added, removed)
	default:
		text = fmt.Sprintf("%s %s: +%d -%d lines", c.verb, c.rel, added, removed)
	}
	return tools.Result{Content: text, Meta: map[string]any{
		tools.MetaPath: c.rel, tools.MetaDiff: diff, "added": added, "removed": removed, "created": !c.existed,
	}}
}

// lineEdits are the line edits from before to after: those edit_file
// worked out from its matches, or a diff of the two texts.
func (c *change) lineEdits() []lineEdit {
	if c.edits != nil {
		return c.edits
	}
	return lineDiff(string(c.before), string(c.after))
}

// stat looks at rel for a change through one resolution (target): the
// target, whose fi is nil when nothing is there, and which the caller
// closes. Problems are error results for the model (and no target).
func (w *workdir) stat(p, rel string) (*target, *tools.Result) {
	if rel == "." {
		r := tools.Errorf("%s is the working directory, not a file", p)
		return nil, &r
	}
	t, err := w.target(rel)
	if err != nil {
		r := tools.Errorf("%s", describeTarget(p, err))
		return nil, &r
	}
	var msg string
	switch fi := t.fi; {
	case fi == nil && t.link:
		msg = fmt.Sprintf("%s is a symlink to a file that does not exist; write to a path inside the working directory instead", p)
	case fi == nil:
		return t, nil
	case fi.IsDir():
		msg = fmt.Sprintf("%s is a directory, not a file", p)
	case !fi.Mode().IsRegular():
		msg = fmt.Sprintf("%s is not a regular file", p)
	case fi.Size() > editMax:
		msg = fmt.Sprintf("%s is %s, more than the editing tools change (%s)", p, media.Size(int(fi.Size())), media.Size(editMax))
	default:
		return t, nil
	}
	t.close()
	r := tools.Errorf("%s", msg)
	return nil, &r
}

// readBefore reads the content of the file t a change starts from: through
// the buffers when they take it (asked for t's resolved path, never a link
// the editor would follow), else through t's directory handle.
func (w *workdir) readBefore(ctx context.Context, t *target) ([]byte, error) {
	if w.buffers != nil {
		if data, ok, err := w.buffers.ReadFile(ctx, t.real); ok {
			return data, err
		}
	}
	return t.readAll()
}

// keptMode is the part of a file's mode that a rewrite keeps.
func keptMode(fi fs.FileInfo) fs.FileMode {
	return fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
}

// write makes change c on disk, through the directory handle of c.t (the
// resolution its risk was judged on): the file, or a symlink's target, is
// replaced by a temporary file written beside it and renamed over it, so a
// reader sees the old or the new content, never half of it, and a symlink
// stays a link; the temporary file gets the kept mode before the rename.
// Missing parent directories of a new file are created one by one from
// the held handle.
func (e editor) write(c *change) error {
	if err := c.t.mkdirs(); err != nil {
		return err
	}
	dir := c.t.dir
	perm := fs.FileMode(0o644) // for a new file, subject to the umask
	if c.existed {
		perm = 0o600
	}
	tmp, f, err := createTemp(dir, c.t.base, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(c.after)
	if err == nil {
		err = f.Sync()
	}
	if err == nil && c.existed {
		err = f.Chmod(c.mode)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = dir.Rename(tmp, c.t.base)
	}
	if err != nil {
		dir.Remove(tmp)
	}
	return err
}

// createTemp creates a new hidden file beside base in dir (never through a
// symlink: O_EXCL).
func createTemp(dir *os.Root, base string, perm fs.FileMode) (string, *os.File, error) {
	for range 10 {
		var r [6]byte
		rand.Read(r[:])
		tmp := "." + base + ".agent-" + hex.EncodeToString(r[:]) + ".tmp"
		f, err := dir.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return tmp, f, err
	}
	return "", nil, errors.New("cannot create a temporary file")
}

// describeWrite turns an error from writing p into a message for the model.
func describeWrite(p string, err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) && !errors.Is(err, fs.ErrNotExist) && !strings.Contains(err.Error(), "escapes from parent") {
		return fmt.Sprintf("cannot write %s: %v", p, pe.Err)
	}
	return describe(p, err)
}

// refuse is a plan's answer for a change that cannot be made: an error
// result the model reads, and no change.
func refuse(format string, args ...any) (*change, *tools.Result, error) {
	r := tools.Errorf(format, args...)
	return nil, &r, nil
}
