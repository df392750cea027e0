package plugin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/agent-dev/agent/gitcmd"
)

// Limits of a copied or cloned plugin or marketplace: a tree larger than
// these is refused rather than filling the data directory.
const (
	maxFiles = 20000
	maxBytes = 200 << 20
)

// origin is where something to install comes from: a directory to copy,
// or a git repository to clone (a URL, or the path of a local one).
type origin struct {
	dir string // a directory that is no repository's top: copied
	git string // a repository: cloned
	// shorthand is the owner/repo git was made of, which may as well
	// have been meant as a path that is not there.
	shorthand string
}

// cloneError says what failed when cloning o.
func (o origin) cloneError(err error) error {
	if o.shorthand != "" {
		return fmt.Errorf("no directory %s here, and as GitHub's %s: %w", o.shorthand, o.shorthand, err)
	}
	return err
}

// githubShorthand is GitHub's owner/repo, which Claude Code takes for a
// repository on github.com.
var githubShorthand = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*$`)
})

// scpLike is git's user@host:path.
var scpLike = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_.-]+@[A-Za-z0-9_.-]+:`) })

// isGitURL reports whether s is a URL git clones.
func isGitURL(s string) bool {
	for _, p := range []string{"https://", "http://", "ssh://", "git://", "file://", "git+ssh://"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return scpLike().MatchString(s)
}

// locate says where source (a path relative to cwd, a git URL, or
// GitHub's owner/repo) comes from. A directory at the top of a git work
// tree is cloned (what is committed, as a remote would give it); any
// other directory is copied as it is.
func locate(source, cwd string) (origin, error) {
	p := source
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	if fi, err := os.Stat(p); err == nil {
		if !fi.IsDir() {
			return origin{}, fmt.Errorf("%s is a file, not a directory", source)
		}
		if _, err := os.Stat(filepath.Join(p, ".git")); err == nil {
			return origin{git: p}, nil
		}
		return origin{dir: p}, nil
	}
	if isGitURL(source) {
		return origin{git: source}, nil
	}
	if githubShorthand().MatchString(source) {
		return origin{git: "https://github.com/" + strings.TrimSuffix(source, ".git") + ".git", shorthand: source}, nil
	}
	return origin{}, fmt.Errorf("%s: no such directory, and not a git URL", source)
}

// local reports whether a repository location is a path on this machine
// (git clones those without --depth).
func local(repo string) bool {
	return filepath.IsAbs(repo) || strings.HasPrefix(repo, "file://")
}

// clone clones repo into dest (which must not exist) at ref (a branch or
// tag, "" the default) and sha ("" the ref's head), without submodules,
// and returns the commit it checked out.
func clone(ctx context.Context, repo, ref, sha, dest string) (string, error) {
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return "", err
	}
	args := []string{"clone", "--quiet", "--no-recurse-submodules"}
	if sha == "" && !local(repo) {
		args = append(args, "--depth", "1")
	}
	if ref != "" {
		args = append(args, "--branch", ref)
	}
	args = append(args, "--", repo, dest)
	if _, err := (gitcmd.Cmd{Dir: filepath.Dir(dest)}).Run(ctx, args...); err != nil {
		return "", err
	}
	if sha != "" {
		if _, err := (gitcmd.Cmd{Dir: dest}).Run(ctx, "checkout", "--quiet", "--detach", sha); err != nil {
			return "", err
		}
	}
	out, err := (gitcmd.Cmd{Dir: dest}).Run(ctx, "rev-parse", "HEAD")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(out), nil
}

// copyTree copies the directory src to dest (which must not exist): its
// directories and regular files with their permission bits, without any
// .git; a symlink is left out and named in notes (followed, it could
// bring in files from anywhere). A tree past the limits is an error.
func copyTree(src, dest string) (notes []string, err error) {
	if src, err = filepath.EvalSymlinks(src); err != nil {
		return nil, err
	}
	files, total := 0, int64(0)
	err = filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dest, rel)
		switch {
		case d.IsDir() && d.Name() == ".git" && path != src:
			return filepath.SkipDir
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			notes = append(notes, fmt.Sprintf("%s: a symlink, left out", filepath.ToSlash(rel)))
			return nil
		case !d.Type().IsRegular():
			notes = append(notes, fmt.Sprintf("%s: not a regular file, left out", filepath.ToSlash(rel)))
			return nil
		case d.Name() == ".git":
			return nil // a worktree's or submodule's .git file
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		files, total = files+1, total+fi.Size()
		if files > maxFiles || total > maxBytes {
			return fmt.Errorf("%s holds more than %d files or %d MiB", src, maxFiles, maxBytes>>20)
		}
		return copyFile(path, target, fi.Mode().Perm())
	})
	return notes, err
}

// copyFile copies the regular file src to dest with mode perm.
func copyFile(src, dest string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dest, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm|0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// fetch brings sub (a "/"-separated path inside o, "" all of it) of o
// into dest: from a clone without its .git, or copied. It returns the
// commit of a clone and the copy's notes.
func fetch(ctx context.Context, o origin, ref, sha, sub, dest string) (commit string, notes []string, err error) {
	from := o.dir
	if o.git != "" {
		from = dest + ".clone"
		defer os.RemoveAll(from)
		if commit, err = clone(ctx, o.git, ref, sha, from); err != nil {
			return "", nil, o.cloneError(err)
		}
	}
	if sub != "" {
		if from, err = resolveInside(from, "./"+strings.TrimPrefix(sub, "./")); err != nil {
			return "", nil, err
		}
		if fi, err := os.Stat(from); err != nil || !fi.IsDir() {
			return "", nil, fmt.Errorf("%s: no directory %s in it", cmpOr(o.git, o.dir), sub)
		}
	}
	notes, err = copyTree(from, dest)
	return commit, notes, err
}

// errMarketplace says a source is a marketplace, not a plugin.
var errMarketplace = errors.New("it is a marketplace, not a plugin")
