//go:build linux

package sandbox

// Third review of the git guard. Each test runs real commands in the
// sandbox, then looks at what the agent (unconfined) did or what the
// person's next git command runs.

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// initRepoOutside turns the box's working directory into a real repository
// with one commit, as the person would have it before the session.
func initRepoOutside(t *testing.T, b *box) {
	t.Helper()
	gitMust(t, "-C", b.work, "init", "-q")
	gitMust(t, "-C", b.work, "commit", "-q", "--allow-empty", "-m", "x")
}

// withSubmodule makes the box's working directory a repository with a
// nested repository "sub" committed as a gitlink, as the person would have
// it before the session; config, when given, is a key and value set in sub.
func withSubmodule(t *testing.T, b *box, config ...string) string {
	t.Helper()
	initRepoOutside(t, b)
	sub := filepath.Join(b.work, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	gitMust(t, "-C", sub, "init", "-q")
	gitMust(t, "-C", sub, "commit", "-q", "--allow-empty", "-m", "y")
	if len(config) == 2 {
		gitMust(t, "-C", sub, "config", config[0], config[1])
	}
	gitMust(t, "-C", b.work, "add", "sub")
	gitMust(t, "-C", b.work, "commit", "-qm", "sub")
	return sub
}

// HIGH. guardGitlinks acts wherever the command points it: a gitlink whose
// .git is a symlink, or a gitdir: file naming any directory (absolute, or
// a symlink in the working directory), outside every writable root makes
// the agent,
// unconfined, rename that directory's "config" to config.blocked-by-agent
// and write a git config in its place, and move every file of its "hooks"
// directory away. The sandbox forbids the command these writes; the guard
// does them for it (~/.ssh/config, ~/.aws/config, ~/.kube/config, ...).
// Since 0b69b81 every gitlink is neutralised when the index changed, with
// os.Stat following links, so no timing check stands in the way.
func TestGuardWritesOutsideThroughGitlinkSymlink(t *testing.T) {
	needGit(t)
	// %[1]s is a directory outside the sandbox's reach (another project's
	// .git, or ~/.aws, ~/.ssh, ...), %[2]s the directory holding it.
	for name, plant := range map[string]string{
		"dot-git-symlink": "mkdir sub && ln -s %[1]s sub/.git",
		"gitdir-file":     "ln -s %[1]s link && mkdir sub && echo 'gitdir: ../link' > sub/.git",
		"gitdir-absolute": "mkdir sub && echo gitdir: %[1]s > sub/.git",
		"worktree-link":   "ln -s %[2]s sub",
	} {
		t.Run(name, func(t *testing.T) {
			b := newBox(t, nil)
			b.needNamespaces()
			initRepoOutside(t, b)
			project := filepath.Join(b.outside, "project")
			victim := filepath.Join(project, ".git")
			if err := os.MkdirAll(filepath.Join(victim, "hooks"), 0o755); err != nil {
				t.Fatal(err)
			}
			const cfg = "[core]\n\tbare = false\n[pull]\n\trebase = true\n"
			write(t, filepath.Join(victim, "config"), cfg)
			write(t, filepath.Join(victim, "hooks", "pre-commit"), "keep\n")
			res := b.run(sprintf(plant, sq(victim), sq(project)) +
				" && git update-index --add --cacheinfo 160000,1111111111111111111111111111111111111111,sub")
			t.Logf("command:\n%s", res.Content)
			unchanged(t, filepath.Join(victim, "config"), cfg)
			unchanged(t, filepath.Join(victim, "hooks", "pre-commit"), "keep\n")
			absent(t, filepath.Join(victim, "config.blocked-by-agent"))
		})
	}
}

// HIGH. A submodule or nested repository that the index already records is
// looked at only when the index changes: a command that only writes the
// nested repository's config (not protected: only the working directory's
// own .git/config and .git/hooks are) leaves core.fsmonitor there, and the
// person's `git status` runs it outside the sandbox.
func TestGuardIgnoresExistingGitlinkWhenIndexUnchanged(t *testing.T) {
	needGit(t)
	b := newBox(t, nil)
	b.needNamespaces()
	withSubmodule(t, b)
	marker := filepath.Join(b.outside, "fsmonitor-ran")
	res := b.run("git -C sub config core.fsmonitor " + sq("touch "+marker))
	t.Logf("command:\n%s", res.Content)
	t.Logf("git status outside:\n%s", gitOutside(t, b.work, "status", "--short"))
	absent(t, marker)
}

func sprintf(format string, a ...any) string { return fmt.Sprintf(format, a...) }

// MEDIUM (usability, since 0b69b81). Any change to the index (`git add f`)
// now neutralises every registered submodule, whoever set it up: the
// person's own submodule hooks (git lfs installs pre-push, post-checkout,
// ...) are moved to hooks.blocked-by-agent and a config with any key
// beyond the short list (lfs.repositoryformatversion, pull.rebase,
// core.sparseCheckout) is replaced, although the command touched neither.
// Comparing the change time (changeTime) of the submodule's git
// directory, config, hooks directory and each hook with the time Guard
// was called would limit the repair to what the command changed.
func TestGuardBreaksUntouchedSubmodule(t *testing.T) {
	needGit(t)
	b := newBox(t, nil)
	b.needNamespaces()
	sub := withSubmodule(t, b, "lfs.repositoryformatversion", "0")
	hook := filepath.Join(sub, ".git", "hooks", "pre-push")
	write(t, hook, "#!/bin/sh\ngit lfs pre-push \"$@\"\n")
	cfg, _ := os.ReadFile(filepath.Join(sub, ".git", "config"))
	// The person set the submodule up before the command: a clock tick
	// before it at least (a change within the tick the command starts in
	// counts as the command's, see changeClock).
	afterThisTick()
	res := b.run("echo x > f && git add f")
	t.Logf("command:\n%s", res.Content)
	if _, err := os.Stat(hook); err != nil {
		t.Errorf("the person's submodule hook was moved: %v", err)
	}
	unchanged(t, filepath.Join(sub, ".git", "config"), string(cfg))
}

// afterThisTick returns once the clock that change times come from has
// moved on: what was changed before the call is then older than anything a
// command started after it changes.
func afterThisTick() {
	for range 2 { // two ticks: a margin for a clock read on another CPU
		start := changeClock()
		for !changeClock().After(start) {
			runtime.Gosched()
		}
	}
}
