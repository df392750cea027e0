package sandbox

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// repairDotGit treats a Dir/.git that a command created as something other
// than a directory, rewrote, or changed the type of (file to directory or
// back) as untrusted: it is moved to .git.blocked-by-agent, and a .git file
// that was there before is put back as it was.
func (s *Sandbox) repairDotGit(before gitState) []string {
	dotGit := filepath.Join(s.policy.Dir, ".git")
	now := kindOf(dotGit)
	changed := false
	switch before.dotGit {
	case entryNone:
		changed = now != entryNone && now != entryDir
	case entryDir:
		changed = now != entryDir
	case entryFile:
		if now == entryFile {
			b, err := os.ReadFile(dotGit)
			changed = err != nil || !bytes.Equal(b, before.content)
		} else {
			changed = true
		}
	}
	if !changed {
		return nil
	}
	var done []string
	if now != entryNone {
		blocked := dotGit + ".blocked-by-agent"
		os.RemoveAll(blocked)
		if err := os.Rename(dotGit, blocked); err != nil {
			return []string{fmt.Sprintf(".git was changed and could not be moved aside (%v): tell the user", err)}
		}
		done = append(done, ".git, changed by the command, moved to .git.blocked-by-agent")
	}
	switch before.dotGit {
	case entryFile:
		if os.WriteFile(dotGit, before.content, 0o644) == nil {
			done = append(done, ".git file put back as it was")
		}
	case entryDir:
		done = append(done, "the repository's .git directory is gone: tell the user")
	}
	return done
}

// repairWorktrees checks the administrative directory of every linked
// worktree of the repository whose common directory is common: a
// commondir, gitdir or config.worktree file created or changed during the
// command must still mean what git worktree add writes. A commondir that
// names another repository and a gitdir whose worktree does not point back
// are moved aside (git then no longer takes the worktree for one); a
// config.worktree holding more than safe keys is replaced.
func (s *Sandbox) repairWorktrees(common string, since time.Time) []string {
	worktrees := filepath.Join(common, "worktrees")
	if isLink(worktrees) {
		// Never followed: it may lead outside the writable roots.
		return moveAside(worktrees, "worktrees, a link,")
	}
	ents, err := os.ReadDir(worktrees)
	if err != nil {
		return nil
	}
	var done []string
	for _, e := range ents {
		admin := filepath.Join(worktrees, e.Name())
		name := "worktrees/" + e.Name()
		if isLink(admin) || kindOf(admin) != entryDir {
			if changedAfter(admin, since) {
				done = append(done, moveAside(admin, name+", not a directory,")...)
			}
			continue
		}
		if p := filepath.Join(admin, "commondir"); changedAfter(p, since) {
			if real, err := filepath.EvalSymlinks(commonDirOf(admin)); err != nil || !sameDir(real, common) {
				done = append(done, moveAside(p, name+"/commondir, which named another repository,")...)
			}
		}
		if p := filepath.Join(admin, "gitdir"); changedAfter(p, since) && !pointsBack(p, admin) {
			done = append(done, moveAside(p, name+"/gitdir, which named no worktree of this repository,")...)
		}
		if p := filepath.Join(admin, "config.worktree"); changedAfter(p, since) {
			done = append(done, plainFile(p, name+"/config.worktree")...)
		}
	}
	return done
}

// repairModules neutralises the submodules' git directories (common/
// modules/...) whose hooks or config changed during the command: the
// person's git runs in them on `git submodule update` and `git status`.
func (s *Sandbox) repairModules(common string, since time.Time) []string {
	var done []string
	for _, m := range moduleDirs(common) {
		if metaChangedSince(m, since) {
			rel, _ := filepath.Rel(filepath.Dir(common), m)
			done = append(done, guardRepo(m, rel, true, true)...)
		}
	}
	return done
}

// repairNestedGit looks after one nested .git entry; name is it as shown.
func (s *Sandbox) repairNestedGit(p, name string, since time.Time) []string {
	switch kindOf(p) {
	case entryDir:
		if metaChangedSince(p, since) {
			done := guardRepo(p, name, true, true)
			if c := filepath.Join(p, "commondir"); changedAfter(c, since) {
				done = append(done, moveAside(c, name+"/commondir")...)
			}
			return done
		}
	case entryFile:
		if !changedAfter(p, since) {
			// An old .git file: its git directory may still have changed.
			b, _ := os.ReadFile(p)
			dir := gitDirOf(p, b)
			if dir == "" {
				return nil
			}
			// Resolved first: the guard runs unconfined and must act only
			// inside the writable roots.
			if real, err := filepath.EvalSymlinks(dir); err == nil && s.policy.rootOf(real) != "" && !s.policy.git.holds(real) && metaChangedSince(real, since) {
				return guardRepo(real, name+" (its git directory)", true, true)
			}
			return nil
		}
		b, _ := os.ReadFile(p)
		dir := gitDirOf(p, b)
		real, err := filepath.EvalSymlinks(dir)
		if dir == "" || err != nil || s.policy.rootOf(real) == "" {
			return moveAside(p, name+", a .git file naming a git directory outside the writable roots,")
		}
		var done []string
		if !s.policy.git.holds(real) {
			done = guardRepo(real, name+" (its git directory)", true, true)
		}
		if c := commonDirOf(real); c != real {
			rc, err := filepath.EvalSymlinks(c)
			switch {
			case err != nil || s.policy.rootOf(rc) == "":
				done = append(done, moveAside(p, name+", whose git directory's commondir lies outside the writable roots,")...)
			case !s.policy.git.holds(rc) && metaChangedSince(rc, since):
				done = append(done, guardRepo(rc, name+" (its common git directory)", true, true)...)
			}
		}
		return done
	case entryOther:
		if changedAfter(p, since) {
			return moveAside(p, name+", a link,")
		}
	}
	return nil
}

// metaChangedSince reports whether what in a git directory can make git run
// a program (config, config.worktree, commondir, hooks and each hook)
// had its status changed at or after since.
func metaChangedSince(gitDir string, since time.Time) bool {
	paths := []string{filepath.Join(gitDir, "config"), filepath.Join(gitDir, "config.worktree"),
		filepath.Join(gitDir, "commondir"), filepath.Join(gitDir, "hooks")}
	if ents, err := os.ReadDir(filepath.Join(gitDir, "hooks")); err == nil {
		for _, e := range ents {
			paths = append(paths, filepath.Join(gitDir, "hooks", e.Name()))
		}
	}
	for _, p := range paths {
		if changedAfter(p, since) {
			return true
		}
	}
	return false
}

// changedAfter reports whether path exists and its status changed at or
// after since (a file made or written then).
func changedAfter(path string, since time.Time) bool {
	fi, err := os.Lstat(path)
	return err == nil && !changeTime(fi).Before(since)
}

// pointsBack reports whether a worktree's gitdir file names a .git file
// that names admin back.
func pointsBack(gitdirFile, admin string) bool {
	b, err := os.ReadFile(gitdirFile)
	if err != nil {
		return false
	}
	dotGit := string(bytes.TrimSpace(b))
	if !filepath.IsAbs(dotGit) {
		dotGit = filepath.Join(admin, dotGit)
	}
	content, err := os.ReadFile(dotGit)
	if err != nil {
		return false
	}
	real, err := filepath.EvalSymlinks(gitDirOf(dotGit, content))
	return err == nil && sameDir(real, admin)
}

// sameDir reports whether two paths are the same directory, symlinks
// resolved.
func sameDir(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}

// moveAside renames path to path.blocked-by-agent; what names it for the
// note.
func moveAside(path, what string) []string {
	blocked := path + ".blocked-by-agent"
	os.RemoveAll(blocked)
	if os.Rename(path, blocked) != nil {
		return nil
	}
	return []string{what + " moved to " + filepath.Base(blocked)}
}

// plainFile replaces a config file (config.worktree) that holds more than
// safe keys or is not a regular file with nothing: it is moved aside.
func plainFile(path, name string) []string {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil
	}
	if fi.Mode().IsRegular() {
		if b, err := os.ReadFile(path); err == nil && configIsPlain(b) {
			return nil
		}
	}
	return moveAside(path, name)
}
