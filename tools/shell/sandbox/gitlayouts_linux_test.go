//go:build linux

package sandbox

// Issue 13: git outside the plain layout. The working directory is a plain
// repository, a linked worktree (.git is a "gitdir:" file naming
// main/.git/worktrees/NAME) or a submodule checkout (.git names
// super/.git/modules/sub). In each, a command tries to make the person's
// next git command run a program of its choosing: by rewriting .git, by
// changing its type, by adding a worktree whose commondir it redirects, by
// leaving an untracked nested repository or a nested .git file. Each
// attack ends with the person's git (unconfined) in every place the
// command prepared, and fails when the program ran.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// layouts make the working directory p.Dir a repository of each kind,
// before the sandbox is made, as the person would have it.
var layouts = []struct {
	name string
	make func(t *testing.T, p *Policy)
}{
	{"plain", func(t *testing.T, p *Policy) {
		os.RemoveAll(filepath.Join(p.Dir, ".git"))
		gitMust(t, "-C", p.Dir, "init", "-q")
		gitMust(t, "-C", p.Dir, "commit", "-q", "--allow-empty", "-m", "x")
	}},
	{"worktree", func(t *testing.T, p *Policy) {
		main := filepath.Join(filepath.Dir(p.Dir), "main")
		gitMust(t, "init", "-q", main)
		gitMust(t, "-C", main, "commit", "-q", "--allow-empty", "-m", "x")
		keep := preserve(t, p.Dir, ".agent-config")
		gitMust(t, "-C", main, "worktree", "add", "-q", p.Dir)
		keep()
	}},
	{"submodule", func(t *testing.T, p *Policy) {
		base := filepath.Dir(p.Dir)
		src, super := filepath.Join(base, "subsrc"), filepath.Join(base, "super")
		gitMust(t, "init", "-q", src)
		gitMust(t, "-C", src, "commit", "-q", "--allow-empty", "-m", "s")
		gitMust(t, "init", "-q", super)
		gitMust(t, "-C", super, "commit", "-q", "--allow-empty", "-m", "x")
		gitMust(t, "-C", super, "-c", "protocol.file.allow=always", "submodule", "add", "-q", src, "sub")
		gitMust(t, "-C", super, "commit", "-qm", "sub")
		p.Dir = filepath.Join(super, "sub")
		if err := os.MkdirAll(filepath.Join(p.Dir, ".agent-config"), 0o755); err != nil {
			t.Fatal(err)
		}
		p.Protected = []string{filepath.Join(p.Dir, ".agent-config")}
	}},
}

// preserve moves dir/name away so that dir can be made anew, and returns
// the function that puts it back.
func preserve(t *testing.T, dir, name string) func() {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(dir), "preserved")
	if err := os.Rename(filepath.Join(dir, name), tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	return func() {
		if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
}

func TestGitLayoutsEscapes(t *testing.T) {
	needGit(t)
	attacks := []struct {
		name    string
		command string // $E is a repository armed by the command, in the temporary directory
		gitIn   []string
	}{
		{"rewrite .git", `printf 'gitdir: %s\n' "$E/.git" > .git`, []string{"."}},
		{"rewrite .git by rename", `printf 'gitdir: %s\n' "$E/.git" > g && mv -f g .git`, []string{"."}},
		{"replace .git with a directory", `rm -rf .git; cp -r "$E/.git" .git`, []string{"."}},
		{"replace .git with a link", `rm -rf .git; ln -s "$E/.git" .git`, []string{"."}},
		{"worktree with a redirected commondir", `git worktree add -q wt2 2>&1; echo "$E/.git" > "$(git rev-parse --git-common-dir)/worktrees/wt2/commondir"`, []string{"wt2"}},
		{"untracked nested repository", `git init -q nested && git -C nested config core.fsmonitor "$FSM" && cp "$E/.git/hooks/pre-commit" nested/.git/hooks/`, []string{"nested"}},
		{"nested .git file", `mkdir -p n2 && printf 'gitdir: %s\n' "$E/.git" > n2/.git`, []string{"n2"}},
		{"nested .git link", `mkdir -p n3 && ln -s "$E/.git" n3/.git`, []string{"n3"}},
		{"nested repository with a commondir", `git init -q n4 && echo "$E/.git" > n4/.git/commondir`, []string{"n4"}},
	}
	for _, layout := range layouts {
		for _, attack := range attacks {
			t.Run(layout.name+"/"+attack.name, func(t *testing.T) {
				b := newBox(t, func(p *Policy) { layout.make(t, p) })
				b.needNamespaces()
				marker := filepath.Join(b.outside, "ran")
				fsm := "touch " + marker + "; false"
				arm := `E=` + sq(b.tmp+"/evil") + `; FSM=` + sq(fsm) + `; git init -q "$E" && git -C "$E" config core.fsmonitor "$FSM" && ` +
					`printf '#!/bin/sh\ntouch %s\n' ` + sq(marker) + ` > "$E/.git/hooks/pre-commit" && chmod +x "$E/.git/hooks/pre-commit"; `
				res := b.run(arm + attack.command)
				t.Logf("command:\n%s", res.Content)
				for _, in := range attack.gitIn {
					dir := filepath.Join(b.work, in)
					gitOutside(t, dir, "status", "--short")
					gitOutside(t, dir, "commit", "-q", "--allow-empty", "-m", "person")
				}
				absent(t, marker)
				destroys := strings.HasPrefix(attack.command, "rm -rf .git") && layout.name == "plain" // deletes HEAD and objects: not an escape
				if out := gitOutside(t, b.work, "status", "--short"); strings.Contains(out, "fatal") && !destroys {
					t.Errorf("the working directory's repository no longer works after the guard:\n%s", out)
				}
			})
		}
	}
}

// In every layout, git works in the sandbox as the agent needs it: status,
// add and commit, and the guard says nothing.
func TestGitLayoutsStillWork(t *testing.T) {
	needGit(t)
	for _, layout := range layouts {
		t.Run(layout.name, func(t *testing.T) {
			b := newBox(t, func(p *Policy) { layout.make(t, p) })
			b.needNamespaces()
			res := b.run("git status --short && echo x > f && git add f && git -c user.name=a -c user.email=a@b commit -qm f 2>&1; echo done")
			if strings.Contains(res.Content, "undone") {
				t.Errorf("the guard acted on ordinary git use:\n%s", res.Content)
			}
			if layout.name == "plain" && !strings.Contains(gitOutside(t, b.work, "log", "--oneline"), " f") {
				t.Errorf("the commit in the sandbox did not happen:\n%s", res.Content)
			}
		})
	}
}

// In a linked worktree whose main repository's .git is a writable root,
// commands can commit, and that repository's hooks and config stay
// read-only.
func TestWorktreeWithItsRepositoryWritable(t *testing.T) {
	needGit(t)
	var mainGit string
	b := newBox(t, func(p *Policy) {
		layouts[1].make(t, p)
		mainGit = filepath.Join(filepath.Dir(p.Dir), "main", ".git")
		p.WritableRoots = []string{mainGit}
	})
	b.needNamespaces()
	res := b.run("echo x > f && git add f && git -c user.name=a -c user.email=a@b commit -qm f && echo committed")
	if !strings.Contains(res.Content, "committed") {
		t.Errorf("a command should commit in the worktree:\n%s", res.Content)
	}
	for _, target := range []string{filepath.Join(mainGit, "hooks", "pre-commit"), filepath.Join(mainGit, "config")} {
		if res := b.run("echo evil >> " + sq(target)); exitCode(res) == 0 {
			t.Errorf("%s was writable:\n%s", target, res.Content)
		}
	}
	absent(t, filepath.Join(mainGit, "hooks", "pre-commit"))
}
