package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/worktree"
)

// worktreeAuto is the value of --worktree given without a name: the
// worktree gets a generated one (worktree.NewName).
const worktreeAuto = "auto"

// worktreeName is the worktree --worktree names: "" for none, a generated
// name for worktreeAuto.
func worktreeName(flag string, now time.Time) string {
	if flag == worktreeAuto {
		return worktree.NewName(now)
	}
	return flag
}

// worktreeEnv is what the worktree commands need: where to write, the
// host (for the data directory) and the directory whose repository they
// work on.
type worktreeEnv struct {
	out, errw io.Writer
	open      func(context.Context) (*host.Host, error)
	dir       func() (string, error)
}

// manager opens the host and returns its worktrees' manager and the
// repository of the working directory ("" when all is set); the caller
// closes the host.
func (e *worktreeEnv) manager(ctx context.Context, all bool) (*host.Host, *worktree.Manager, string, error) {
	h, err := e.open(ctx)
	if err != nil {
		return nil, nil, "", err
	}
	m, err := h.Worktrees()
	if err != nil {
		h.Close()
		return nil, nil, "", err
	}
	if all {
		return h, m, "", nil
	}
	dir, err := e.dir()
	if err == nil {
		var repo string
		if repo, err = host.WorktreeRepo(ctx, dir); err == nil {
			return h, m, repo, nil
		}
	}
	h.Close()
	return nil, nil, "", err
}

// newWorktreeCmd builds "agent worktree": list, remove and prune the git
// worktrees agent made.
func newWorktreeCmd(st Streams, getenv func(string) string, o *Options) *cobra.Command {
	e := &worktreeEnv{
		out: st.Out, errw: st.Err,
		open: func(ctx context.Context) (*host.Host, error) { return openHost(ctx, o, getenv, false) },
		dir:  func() (string, error) { return workingDir(o.Dir) },
	}
	c := &cobra.Command{
		Use:   "worktree",
		Short: "List, remove and prune the git worktrees agent made (agent --worktree, isolated subagents)",
		Long: `agent --worktree NAME works in a git worktree of its own, on branch agent/NAME, and
subagents with isolation: worktree each in one of theirs. They live in the data
directory, beside the session database. These commands work on those of the
current directory's repository.

  agent worktree list
  agent worktree remove NAME
  agent worktree prune`,
		Args: usageExactArgs(0),
		RunE: func(c *cobra.Command, _ []string) error { return c.Help() },
	}
	c.PersistentFlags().StringVarP(&o.Dir, "cwd", "C", "", "a directory of the repository (default the current directory)")
	c.AddCommand(newWorktreeListCmd(e), newWorktreeRemoveCmd(e), newWorktreePruneCmd(e))
	return c
}

// worktreeListOptions are the flags of "agent worktree list".
type worktreeListOptions struct{ All, JSON bool }

func newWorktreeListCmd(e *worktreeEnv) *cobra.Command {
	opts := &worktreeListOptions{}
	c := &cobra.Command{
		Use:   "list",
		Short: "List the worktrees agent made for this repository: name, branch, state, session, path",
		Args:  usageExactArgs(0),
		RunE:  func(c *cobra.Command, _ []string) error { return runWorktreeList(c.Context(), e, opts) },
	}
	c.Flags().BoolVar(&opts.All, "all", false, "list those of every repository")
	c.Flags().BoolVar(&opts.JSON, "json", false, "print a JSON array")
	return c
}

// worktreeJSON is a worktree in list's JSON output.
type worktreeJSON struct {
	Name    string    `json:"name"`
	Branch  string    `json:"branch"`
	State   string    `json:"state"`
	Dirty   int       `json:"dirty_files"`
	Commits int       `json:"commits"`
	InUse   bool      `json:"in_use"`
	PID     int       `json:"pid,omitempty"`
	Crashed bool      `json:"crashed"`
	Session string    `json:"session"`
	Task    string    `json:"task_call,omitempty"`
	Path    string    `json:"path"`
	Repo    string    `json:"repo"`
	Base    string    `json:"base"`
	Created time.Time `json:"created_at"`
	Error   string    `json:"error,omitempty"`
}

func runWorktreeList(ctx context.Context, e *worktreeEnv, opts *worktreeListOptions) error {
	h, m, repo, err := e.manager(ctx, opts.All)
	if err != nil {
		return err
	}
	defer h.Close()
	entries, errs := m.List(ctx, repo)
	for _, err := range errs {
		fmt.Fprintln(e.errw, "agent:", err)
	}
	if opts.JSON {
		out := make([]worktreeJSON, 0, len(entries))
		for _, en := range entries {
			j := worktreeJSON{Name: en.Name, Branch: en.Branch, State: en.Status.State(), Dirty: en.Status.Dirty, Commits: en.Status.Commits,
				InUse: en.InUse, Crashed: en.Crashed, Session: en.Session, Task: en.Task, Path: en.Path, Repo: en.Repo, Base: en.Base,
				Created: en.Created, Error: en.Err}
			if en.InUse && en.Owner != nil {
				j.PID = en.Owner.PID
			}
			out = append(out, j)
		}
		return writeIndentedJSON(e.out, out)
	}
	return writeOut(e.out, worktreeTable(entries, repo))
}

// worktreeTable is the table of entries for people (agent worktree list,
// the interface's /worktrees), or a line saying there are none.
func worktreeTable(entries []worktree.Entry, repo string) string {
	if len(entries) == 0 {
		if repo == "" {
			return "no worktrees made by agent\n"
		}
		return fmt.Sprintf("no worktrees made by agent for %s (agent --worktree NAME makes one)\n", repo)
	}
	var b strings.Builder
	_ = worktree.WriteTable(&b, entries)
	return b.String()
}

// worktreeRemoveOptions are the flags of "agent worktree remove".
type worktreeRemoveOptions struct{ Force bool }

func newWorktreeRemoveCmd(e *worktreeEnv) *cobra.Command {
	opts := &worktreeRemoveOptions{}
	c := &cobra.Command{
		Use:   "remove NAME",
		Short: "Remove a worktree and its branch (a branch with commits of its own stays)",
		Long: `Remove the worktree NAME that agent made for this repository: its directory, its
branch agent/NAME unless that holds commits of its own, and agent's record of it.
A worktree with uncommitted changes is refused unless --force (the changes are
then lost); one a running agent works in is always refused.`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("%s needs one worktree name (agent worktree list shows them), got %d arguments", c.CommandPath(), len(args))
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error { return runWorktreeRemove(c.Context(), e, args[0], opts) },
	}
	c.Flags().BoolVar(&opts.Force, "force", false, "remove it even with uncommitted changes, which are lost")
	return c
}

func runWorktreeRemove(ctx context.Context, e *worktreeEnv, name string, opts *worktreeRemoveOptions) error {
	h, m, repo, err := e.manager(ctx, false)
	if err != nil {
		return err
	}
	defer h.Close()
	r, err := m.Get(repo, name)
	if errors.Is(err, worktree.ErrNotFound) {
		return usageError{Err: err}
	}
	if err != nil {
		return err
	}
	remove := m.Remove
	if opts.Force {
		remove = m.RemoveForce
	}
	rm, err := remove(ctx, r)
	if err != nil {
		return err
	}
	return writeOut(e.out, removedLine(rm)+"\n")
}

// removedLine says what removing a worktree did.
func removedLine(rm worktree.Removed) string {
	line := fmt.Sprintf("removed worktree %s (%s)", rm.Name, rm.Path)
	switch {
	case rm.BranchKept && rm.Commits > 0:
		commits := fmt.Sprintf("%d commits", rm.Commits)
		if rm.Commits == 1 {
			commits = "1 commit"
		}
		line += fmt.Sprintf("; branch %s kept: it holds %s of its own", rm.Branch, commits)
	case rm.BranchKept:
		line += fmt.Sprintf("; branch %s kept: it existed before", rm.Branch)
	default:
		line += fmt.Sprintf("; branch %s deleted", rm.Branch)
	}
	return line
}

// worktreePruneOptions are the flags of "agent worktree prune".
type worktreePruneOptions struct{ Force bool }

func newWorktreePruneCmd(e *worktreeEnv) *cobra.Command {
	opts := &worktreePruneOptions{}
	c := &cobra.Command{
		Use:   "prune",
		Short: "Remove the worktrees no running agent works in, but those with uncommitted changes",
		Long: `Remove the worktrees agent made for this repository that no running agent works
in: those left by a crash, and those kept at the end of their session. A branch
with commits of its own stays; a worktree with uncommitted changes is kept unless
--force (the changes are then lost); one whose directory is gone loses git's record
of it too (git worktree prune).`,
		Args: usageExactArgs(0),
		RunE: func(c *cobra.Command, _ []string) error { return runWorktreePrune(c.Context(), e, opts) },
	}
	c.Flags().BoolVar(&opts.Force, "force", false, "remove those with uncommitted changes too, which are lost")
	return c
}

func runWorktreePrune(ctx context.Context, e *worktreeEnv, opts *worktreePruneOptions) error {
	h, m, repo, err := e.manager(ctx, false)
	if err != nil {
		return err
	}
	defer h.Close()
	pruned, err := m.Prune(ctx, repo, opts.Force)
	var b strings.Builder
	for _, p := range pruned {
		if p.Kept {
			fmt.Fprintf(&b, "kept worktree %s (%s): %s\n", p.Name, p.Path, p.Why)
			continue
		}
		b.WriteString(removedLine(p.Removed) + "\n")
	}
	if len(pruned) == 0 {
		b.WriteString("no worktrees to prune\n")
	}
	if werr := writeOut(e.out, b.String()); werr != nil {
		return werr
	}
	return err
}
