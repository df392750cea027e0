package host

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/agent-dev/agent/skills"
	"github.com/agent-dev/agent/subagent"
	"github.com/agent-dev/agent/tools"
	fstools "github.com/agent-dev/agent/tools/fs"
	"github.com/agent-dev/agent/tools/protect"
	"github.com/agent-dev/agent/tools/shell/sandbox"
	"github.com/agent-dev/agent/worktree"
)

// worktreeNote is added to the system prompt of a child that works in a
// worktree of its own.
const worktreeNote = "\nYou work in a git worktree of your own, on branch %s, made from the repository's last commit: " +
	"change files and run commands freely there; nothing you do touches the user's working tree or another subagent's. " +
	"Your changes stay in this worktree (nothing is merged); the agent that gave you the task sees a summary of the diff.\n"

// isolation is what the children need to work in worktrees of their own:
// where worktrees are made, the protected paths and the sandbox of a
// directory, as the session's are built.
type isolation struct {
	m      *worktree.Manager // nil without a data directory
	paths  func(dir string) protect.Paths
	getenv func(string) string
	yolo   bool
}

// dirTools are the built-in tools bound to a working directory: a child
// in a worktree gets its own.
var dirTools = []string{"list_files", "read_file", "grep", "edit_file", "write_file", "bash"}

// isolatedChild is a child's worktree and what works in it: a root, a
// sandbox (workspace-write in the worktree) and the file tools and bash
// bound to them.
type isolatedChild struct {
	m       *worktree.Manager
	rec     worktree.Record
	root    *os.Root
	sandbox *sandbox.Sandbox
	tools   []tools.Tool
}

// isolate makes the worktree of a child of spec (a new branch
// agent/task-XXXXXX from the session directory's HEAD) and the tools that
// work in it. Close it with finish, or with discard when the child never
// starts.
func (c *children) isolate(ctx context.Context, spec subagent.Spec) (_ *isolatedChild, err error) {
	iso := c.iso
	if iso.m == nil {
		return nil, errors.New("isolation worktree needs a data directory to make worktrees in (set --db or XDG_DATA_HOME)")
	}
	ic := &isolatedChild{m: iso.m}
	for range 3 { // a generated name may be taken
		ic.rec, err = iso.m.Create(ctx, c.a.dir, worktree.Spec{Name: worktree.TaskName(), Session: spec.ParentSession, Task: spec.CallID})
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("isolation worktree: %w", err)
	}
	defer func() {
		if err != nil {
			ic.discard(ctx)
		}
	}()
	if ic.root, err = os.OpenRoot(ic.rec.Path); err != nil {
		return nil, fmt.Errorf("isolation worktree: %w", err)
	}
	s, paths := c.a.settings, iso.paths(ic.rec.Path)
	if ic.sandbox, err = newSandbox(iso.yolo, s, paths, iso.getenv, c.a.sandbox); err != nil { // the session's servers answer it
		return nil, err
	}
	ic.tools = fstools.ToolsWith(ic.root, fstools.Options{Sessions: c.a.files, Protect: c.a.protect.With(paths),
		ReadDirs: skills.Dirs(c.a.ext.skills), ImageLimit: s.ImageLimit()})
	bash := modeBash{normal: newBash(s, ic.rec.Path, ic.sandbox, nil, false), plan: c.a.plan.active}
	if c.sandbox != nil { // plan mode's commands: read-only, in the worktree
		bash.readOnly = newBash(s, ic.rec.Path, c.sandbox, nil, false)
	}
	ic.tools = append(ic.tools, bash)
	return ic, nil
}

// maxStatLines bounds the lines of the diff's stat in a child's result.
const maxStatLines = 40

// finish ends the child's work in its worktree: it closes the sandbox and
// the root, removes a worktree without changes, keeps any other, and
// returns the line that ends the task's result: where the work is, and
// the stat of its diff since the worktree was made.
func (ic *isolatedChild) finish(ctx context.Context) string {
	ic.close()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), worktreeWait)
	defer cancel()
	where := fmt.Sprintf("Worked in worktree %s on branch %s", ic.rec.Path, ic.rec.Branch)
	f, err := ic.m.Finish(ctx, ic.rec, true)
	switch {
	case err != nil:
		return fmt.Sprintf("%s; it is kept, but what it holds could not be read: %v", where, err)
	case f.Removed:
		return where + ": no changes, so the worktree and its branch were removed."
	case f.Status.Missing:
		return where + ": its directory is gone."
	}
	state := plural(f.Status.Commits, "commit")
	if f.Status.Dirty > 0 {
		state += ", and uncommitted changes"
	}
	return fmt.Sprintf("%s (%s; nothing merged):\n%s", where, state, capStat(f.Diff.Stat))
}

// discard closes the child's tools and removes its worktree, whatever it
// holds (the child never ran).
func (ic *isolatedChild) discard(ctx context.Context) {
	ic.close()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), worktreeWait)
	defer cancel()
	_, _ = ic.m.RemoveForce(ctx, ic.rec)
}

// close closes the child's sandbox and root.
func (ic *isolatedChild) close() {
	if ic.sandbox != nil {
		ic.sandbox.Close()
		ic.sandbox = nil
	}
	if ic.root != nil {
		ic.root.Close()
		ic.root = nil
	}
}

// capStat keeps at most maxStatLines lines of a diff's stat: the first
// files, a line saying how many more, and the summary.
func capStat(stat string) string {
	lines := strings.Split(stat, "\n")
	if len(lines) <= maxStatLines {
		return stat
	}
	files := lines[:len(lines)-1]
	kept := files[:maxStatLines-2]
	return strings.Join(append(kept, fmt.Sprintf(" ... and %d more files", len(files)-len(kept)), lines[len(lines)-1]), "\n")
}

// plural is "1 commit", "2 commits".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
