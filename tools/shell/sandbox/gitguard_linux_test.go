package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A refused write gets a word for the model; a command that works does not.
func TestRefusalIsExplainedToTheModel(t *testing.T) {
	b := newBox(t, nil)
	res := b.run("echo evil > " + b.outside + "/x")
	if !strings.Contains(res.Content, "agent sandbox (workspace-write, network off)") || !strings.Contains(res.Content, "tell the user") {
		t.Errorf("a refused write should be explained:\n%s", res.Content)
	}
	if res := b.run("echo fine"); strings.Contains(res.Content, "agent sandbox") {
		t.Errorf("a working command got a sandbox note:\n%s", res.Content)
	}
}

// A repository the command creates keeps git's sample hooks, loses any
// other hook and a config that names programs; the command is told.
func TestGitGuardUndoesANewRepositorysHooks(t *testing.T) {
	needGit(t)
	b := newBox(t, nil)
	b.needNamespaces()
	os.RemoveAll(filepath.Join(b.work, ".git"))
	res := b.run(`git init -q && echo evil > .git/hooks/post-checkout && git config core.hooksPath /x && echo made`)
	if !strings.Contains(res.Content, "undone") || !strings.Contains(res.Content, "post-checkout") {
		t.Errorf("the result should say what was undone:\n%s", res.Content)
	}
	absent(t, filepath.Join(b.work, ".git", "hooks", "post-checkout"))
	if out, _ := exec.Command("git", "-C", b.work, "config", "core.hooksPath").Output(); len(out) > 0 {
		t.Errorf("core.hooksPath survived: %s", out)
	}
	if _, err := os.Stat(filepath.Join(b.work, ".git", "hooks", "pre-commit.sample")); err != nil {
		t.Errorf("git's sample hooks should stay: %v", err)
	}
	if res := b.run("git status --short && echo ok"); !strings.HasSuffix(strings.TrimSpace(res.Content), "exit status 0") {
		t.Errorf("the repository should still work:\n%s", res.Content)
	}
}

// A nested repository armed in one command and registered in a later one
// (its config's times set back) is neutralised: since issue 13, already
// when the command that made it ends (the guard looks at every .git under
// the writable roots), so registering it later finds nothing to undo.
func TestGitGuardNestedRepositoryRegisteredLater(t *testing.T) {
	needGit(t)
	b := newBox(t, nil)
	b.needNamespaces()
	os.RemoveAll(filepath.Join(b.work, ".git"))
	gitMust(t, "init", "-q", b.work)
	first := b.run(`git init -q sub && git -C sub config core.fsmonitor 'touch /x' && echo a > sub/a && git -C sub add a && ` +
		`git -C sub -c user.name=t -c user.email=t@t commit -qm a && touch -d 2001-01-01 sub/.git/config sub/.git`)
	res := b.run(`git add sub 2>&1; echo added`)
	if !strings.Contains(first.Content+res.Content, "sub/.git/config moved") {
		t.Errorf("registering the nested repository should neutralise its config:\n%s", res.Content)
	}
	if out, _ := exec.Command("git", "-C", filepath.Join(b.work, "sub"), "config", "core.fsmonitor").Output(); len(out) > 0 {
		t.Errorf("sub still has core.fsmonitor = %s", out)
	}
}
