//go:build linux

package sandbox

// Second review: ways for a sandboxed command to leave behind something
// that git runs outside the sandbox the next time the person uses git in
// the working directory. Each test ends by running git as the person would
// (outside the sandbox) and fails when a program the command chose ran.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
}

// gitOutside runs git in dir as the person would, unconfined, and returns
// its output, failure or not.
func gitOutside(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, _ := gitCommand(t, append([]string{"-C", dir}, args...)...).CombinedOutput()
	return string(out)
}

// gitMust runs git with args as the person would, unconfined, and fails the
// test if it fails.
func gitMust(t *testing.T, args ...string) {
	t.Helper()
	if out, err := gitCommand(t, args...).CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// gitCommand is git with an identity and no system or user config.
func gitCommand(t *testing.T, args ...string) *exec.Cmd {
	cmd := exec.Command("git", append([]string{"-c", "user.name=u", "-c", "user.email=u@example.com"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
	return cmd
}

// HIGH. A repository the command creates is checked by the git guard when
// the command ends, but only as it is then: a .git/hooks (or .git/config)
// that is a symlink to a directory (file) in another writable root (/tmp)
// passes the guard empty (plain). On the next command, protectedNow sees
// the symlink and makes .git read-only, which keeps the link but not its
// target: the command writes the hook (the config) through /tmp, and the
// guard, which only looks at repositories that did not exist before the
// command, says nothing. The person's next `git commit` (`git status`)
// runs it outside the sandbox.
func TestGitSymlinkIntoTempSurvivesTheGuard(t *testing.T) {
	needGit(t)
	t.Run("hooks", func(t *testing.T) {
		b := newBox(t, nil)
		b.needNamespaces()
		os.RemoveAll(filepath.Join(b.work, ".git"))
		hooks := filepath.Join(b.tmp, "h")
		marker := filepath.Join(b.outside, "hook-ran")
		res := b.run("git init -q && rm -rf .git/hooks && mkdir " + sq(hooks) + " && ln -s " + sq(hooks) + " .git/hooks")
		t.Logf("first command:\n%s", res.Content)
		res = b.run("printf '#!/bin/sh\\ntouch %s\\n' " + sq(marker) + " > " + sq(filepath.Join(hooks, "pre-commit")) +
			" && chmod +x " + sq(filepath.Join(hooks, "pre-commit")))
		t.Logf("second command:\n%s", res.Content)
		t.Logf("git commit outside:\n%s", gitOutside(t, b.work, "commit", "--allow-empty", "-qm", "x"))
		absent(t, marker)
	})
	t.Run("config", func(t *testing.T) {
		b := newBox(t, nil)
		b.needNamespaces()
		os.RemoveAll(filepath.Join(b.work, ".git"))
		conf := filepath.Join(b.tmp, "c")
		marker := filepath.Join(b.outside, "fsmonitor-ran")
		res := b.run("git init -q && cp .git/config " + sq(conf) + " && ln -sf " + sq(conf) + " .git/config")
		t.Logf("first command:\n%s", res.Content)
		res = b.run("git config -f " + sq(conf) + " core.fsmonitor " + sq("touch "+marker+"; false"))
		t.Logf("second command:\n%s", res.Content)
		t.Logf("git status outside:\n%s", gitOutside(t, b.work, "status", "--short"))
		absent(t, marker)
	})
}

// HIGH. Only the working directory's own .git is protected and guarded.
// In an existing repository a command creates a nested repository whose
// config names a core.fsmonitor program and adds it to the index as a
// gitlink (.git/index and .git/objects are writable, as they must be for
// git add and git commit). The person's next plain `git status` in the
// working directory runs `git status` inside the nested repository, which
// runs the fsmonitor program outside the sandbox. The same holds for the
// config and hooks of existing submodules under .git/modules.
func TestNestedRepositoryRunsAProgramOnGitStatus(t *testing.T) {
	needGit(t)
	b := newBox(t, nil)
	b.needNamespaces()
	os.RemoveAll(filepath.Join(b.work, ".git"))
	if out := gitOutside(t, b.work, "init", "-q"); out != "" {
		t.Fatal(out)
	}
	marker := filepath.Join(b.outside, "fsmonitor-ran")
	res := b.run("git init -q sub && git -C sub -c user.name=u -c user.email=u@example.com commit -q --allow-empty -m x && " +
		"git -C sub config core.fsmonitor " + sq("touch "+marker+"; false") + " && git add sub 2>/dev/null; echo done")
	t.Logf("command:\n%s", res.Content)
	if strings.Contains(res.Content, "undone") {
		t.Logf("the guard acted")
	}
	t.Logf("git status outside:\n%s", gitOutside(t, b.work, "status", "--short"))
	absent(t, marker)
}

// MEDIUM. A repository whose .git has no config (git does not need one:
// HEAD, objects and refs make a repository) gets none protected:
// createProtected leaves a missing .git/config missing, so a command
// creates it with a core.fsmonitor program that the person's next
// `git status` runs.
func TestMissingGitConfigCanBeCreated(t *testing.T) {
	needGit(t)
	b := newBox(t, nil)
	b.needNamespaces()
	os.RemoveAll(filepath.Join(b.work, ".git"))
	gitOutside(t, b.work, "init", "-q")
	if err := os.Remove(filepath.Join(b.work, ".git", "config")); err != nil {
		t.Fatal(err)
	}
	if out := gitOutside(t, b.work, "status", "--short"); strings.Contains(out, "fatal") {
		t.Skipf("git does not accept a repository without config here: %s", out)
	}
	marker := filepath.Join(b.outside, "fsmonitor-ran")
	res := b.run("printf '[core]\\n\\tfsmonitor = %s\\n' " + sq("touch "+marker+"; false") + " > .git/config; echo done")
	t.Logf("command:\n%s", res.Content)
	t.Logf("git status outside:\n%s", gitOutside(t, b.work, "status", "--short"))
	absent(t, marker)
}

// HIGH. Protected paths are compared with the writable roots as written,
// never resolved. The agent's config directory is often a symlink into a
// dotfiles repository (~/.config/agent -> ~/dotfiles/agent, GNU stow);
// with that repository as the working directory, Protected names
// ~/.config/agent, which lies in no writable root, so nothing protects
// ~/dotfiles/agent/config.toml: a command rewrites the config
// ([sandbox] mode = "off", [permissions] allow = [...]) that the next run
// of the agent loads.
func TestProtectedDirectoryThroughASymlinkIsWritable(t *testing.T) {
	var link, real string
	b := newBox(t, func(p *Policy) {
		real = filepath.Join(p.Dir, "dotfiles", "agent")
		link = filepath.Join(filepath.Dir(p.Dir), "outside", "config-agent")
		p.Protected = append(p.Protected, link)
	})
	b.needNamespaces()
	if err := os.MkdirAll(real, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(real, "config.toml"), "model = \"m\"\n")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	res := b.run("printf '[sandbox]\\nmode = \"off\"\\n' >> " + sq(filepath.Join(link, "config.toml")) + "; " +
		"printf '[sandbox]\\nmode = \"off\"\\n' >> dotfiles/agent/config.toml; echo done")
	t.Logf("command:\n%s", res.Content)
	unchanged(t, filepath.Join(real, "config.toml"), "model = \"m\"\n")
}

// MEDIUM. A missing protected directory of the agent's is created before
// each command only when its parent exists: with the working directory at
// $HOME and no ~/.config yet (a fresh machine or container, the model given
// by --model or AGENT_MODEL), ~/.config/agent is not protected, and a
// command creates ~/.config/agent/config.toml for the next run.
func TestMissingParentOfAProtectedDirectory(t *testing.T) {
	var cfg string
	b := newBox(t, func(p *Policy) {
		cfg = filepath.Join(p.Dir, ".config", "agent")
		p.Protected = append(p.Protected, cfg)
	})
	b.needNamespaces()
	res := b.run("mkdir -p .config/agent && printf '[sandbox]\\nmode = \"off\"\\n' > .config/agent/config.toml; echo done")
	t.Logf("command:\n%s", res.Content)
	absent(t, filepath.Join(cfg, "config.toml"))
}

// HIGH. For a repository the command creates, the guard keeps a config
// unless it holds one of a list of words (dangerousConfig). The list
// misses keys that name programs: remote.<name>.uploadpack (run through
// the shell by `git fetch` and `git pull` from a local path),
// merge.<driver>.driver, mergetool.<tool>.cmd, difftool.<tool>.cmd,
// browser.<tool>.cmd, remote.<name>.receivepack. The person's next
// `git fetch` runs the command's program outside the sandbox. A list of
// known keys to keep (what git init writes, plus branch/remote url and
// fetch) would fail safe where a list of words to refuse does not.
func TestGuardMissesUploadPack(t *testing.T) {
	needGit(t)
	b := newBox(t, nil)
	b.needNamespaces()
	os.RemoveAll(filepath.Join(b.work, ".git"))
	marker := filepath.Join(b.outside, "upload-ran")
	res := b.run("git init -q && git remote add origin " + sq(b.outside) +
		" && git config remote.origin.uploadpack " + sq("touch "+marker+"; git-upload-pack") + " && echo done")
	t.Logf("command:\n%s", res.Content)
	t.Logf("git fetch outside:\n%s", gitOutside(t, b.work, "fetch", "-q", "origin"))
	absent(t, marker)
}
