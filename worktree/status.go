package worktree

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The states of a worktree (Status.State).
const (
	StateClean   = "clean"   // no uncommitted change, no commit since it started
	StateDirty   = "dirty"   // uncommitted changes (tracked files changed, or untracked files)
	StateAhead   = "ahead"   // new commits since it started, nothing uncommitted
	StateMissing = "missing" // its directory is gone
)

// Status is what a worktree holds now.
type Status struct {
	// Missing says its directory is gone.
	Missing bool
	// Commits counts the commits of its HEAD since the record's Base.
	Commits int
	// Dirty counts the paths with uncommitted changes, untracked files
	// included (ignored ones are not).
	Dirty int
}

// State is the status in one word: missing, dirty, ahead or clean.
func (s Status) State() string {
	switch {
	case s.Missing:
		return StateMissing
	case s.Dirty > 0:
		return StateDirty
	case s.Commits > 0:
		return StateAhead
	}
	return StateClean
}

// Changed reports whether the worktree holds anything to keep: an
// uncommitted change or a new commit.
func (s Status) Changed() bool { return s.Dirty > 0 || s.Commits > 0 }

// StatusOf reads the state of worktree r with git (git status, git
// rev-list).
func StatusOf(ctx context.Context, r Record) (Status, error) {
	if _, err := os.Stat(filepath.Join(r.Path, ".git")); errors.Is(err, fs.ErrNotExist) {
		return Status{Missing: true}, nil
	}
	out, err := git(ctx, r.Path, "status", "--porcelain=v1", "-z", "--untracked-files=all")
	if err != nil {
		return Status{}, fmt.Errorf("worktree %s: %w", r.Name, err)
	}
	st := Status{Dirty: porcelainEntries(out)}
	if st.Commits, err = commitsSince(ctx, r.Path, r.Base, "HEAD"); err != nil {
		return Status{}, fmt.Errorf("worktree %s: %w", r.Name, err)
	}
	return st, nil
}

// porcelainEntries counts the entries of git status --porcelain=v1 -z
// (a rename's entry is followed by its source path, not counted).
func porcelainEntries(out string) int {
	n := 0
	fields := strings.Split(out, "\x00")
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if len(f) < 4 {
			continue
		}
		n++
		if f[0] == 'R' || f[0] == 'C' {
			i++ // the source path
		}
	}
	return n
}

// commitsSince counts the commits of rev that base lacks, in dir.
func commitsSince(ctx context.Context, dir, base, rev string) (int, error) {
	out, err := git(ctx, dir, "rev-list", "--count", base+".."+rev)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(out))
}

// Diff is what a worktree changed since it started, as git diff --stat
// shows it: committed and uncommitted changes, new untracked files
// included (ignored ones are not).
type Diff struct {
	// Files are the changed paths, slash-separated.
	Files []string
	// Stat is git diff --stat's text (a line a file, then the summary);
	// Summary its last line ("2 files changed, 3 insertions(+)").
	Stat, Summary string
}

// DiffOf reads what worktree r changed since its Base. Untracked files
// are counted through a temporary index (git add --all into a copy of the
// worktree's index, whose file stats spare git hashing what did not
// change; their blobs go into the repository's objects, the worktree's
// own index is left alone).
func DiffOf(ctx context.Context, r Record) (Diff, error) {
	index, err := copyIndex(ctx, r.Path)
	if err != nil {
		return Diff{}, fmt.Errorf("worktree %s's diff: %w", r.Name, err)
	}
	defer os.Remove(index)
	env := []string{"GIT_INDEX_FILE=" + index}
	if _, err := gitWith(ctx, r.Path, env, "add", "--all", "."); err != nil {
		return Diff{}, fmt.Errorf("worktree %s's diff: %w", r.Name, err)
	}
	stat, err := gitWith(ctx, r.Path, env, "diff", "--cached", "--stat=100", "--no-color", "--no-renames", r.Base)
	if err != nil {
		return Diff{}, fmt.Errorf("worktree %s's diff: %w", r.Name, err)
	}
	names, err := gitWith(ctx, r.Path, env, "diff", "--cached", "--name-only", "-z", "--no-renames", r.Base)
	if err != nil {
		return Diff{}, fmt.Errorf("worktree %s's diff: %w", r.Name, err)
	}
	d := Diff{Stat: strings.TrimRight(stat, "\n")}
	for _, n := range strings.Split(names, "\x00") {
		if n != "" {
			d.Files = append(d.Files, n)
		}
	}
	if lines := strings.Split(d.Stat, "\n"); d.Stat != "" {
		d.Summary = strings.TrimSpace(lines[len(lines)-1])
	}
	return d, nil
}

// copyIndex copies the index of the worktree at dir into a temporary file
// and returns its path (an empty index read from HEAD when the worktree
// has none); the caller removes it.
func copyIndex(ctx context.Context, dir string) (string, error) {
	out, err := git(ctx, dir, "rev-parse", "--path-format=absolute", "--git-path", "index")
	if err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp("", "agent-worktree-index-*")
	if err != nil {
		return "", err
	}
	defer tmp.Close()
	src, err := os.Open(strings.TrimSpace(out))
	if errors.Is(err, fs.ErrNotExist) {
		tmp.Close()
		os.Remove(tmp.Name())
		_, err := gitWith(ctx, dir, []string{"GIT_INDEX_FILE=" + tmp.Name()}, "read-tree", "HEAD")
		return tmp.Name(), err
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	defer src.Close()
	if _, err := io.Copy(tmp, src); err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	return tmp.Name(), nil
}
