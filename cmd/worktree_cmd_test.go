package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/worktree"
)

// --worktree takes an optional name: as the next word when that is a
// valid name, after "=", or none (a generated one); a prompt after a bare
// -w stays the prompt.
func TestWorktreeFlag(t *testing.T) {
	for _, c := range []struct {
		args         []string
		name, prompt string
	}{
		{[]string{"-w"}, worktreeAuto, ""},
		{[]string{"-w", "fix-parser"}, "fix-parser", ""},
		{[]string{"--worktree", "fix-parser", "-p", "go"}, "fix-parser", "go"},
		{[]string{"--worktree=fix"}, "fix", ""},
		{[]string{"-w", "fix the parser"}, worktreeAuto, "fix the parser"},
		{[]string{"-w", "-p", "hi"}, worktreeAuto, "hi"},
		{[]string{"-p", "hi"}, "", "hi"},
	} {
		o, err := parse(t, Streams{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, normalizeArgs(c.args)...)
		if err != nil || o.Worktree != c.name || o.Prompt != c.prompt {
			t.Errorf("%q: worktree %q, prompt %q (%v); want %q, %q", c.args, o.Worktree, o.Prompt, err, c.name, c.prompt)
		}
	}
	now := time.Date(2026, 3, 14, 15, 2, 0, 0, time.UTC)
	if got := worktreeName(worktreeAuto, now); !strings.HasPrefix(got, "20260314-1502-") || worktree.CheckName(got) != nil {
		t.Errorf("a generated name: %q", got)
	}
	if got := worktreeName("fix", now); got != "fix" {
		t.Errorf("a given name became %q", got)
	}
}

// gitRun runs git in dir with a fixed identity, failing the test on error.
func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=T", "-c", "user.email=t@example.com",
		"-c", "init.defaultBranch=main", "-c", "commit.gpgSign=false"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// runWorktree runs "agent --db DB worktree ARGS".
func runWorktree(t *testing.T, db string, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	c := NewRootCmd(Streams{Out: &out, Err: &errOut}, envOf(nil), nil)
	c.SetArgs(append([]string{"--db", db, "worktree"}, args...))
	err := c.Execute()
	return out.String() + errOut.String(), err
}

// agent worktree list shows each worktree's state; remove refuses a
// dirty one without --force (exit 1) and an unknown name (a usage
// error); prune removes what holds no uncommitted change, keeping a
// branch with commits, and keeps the dirty one.
func TestWorktreeCommands(t *testing.T) {
	ctx := context.Background()
	repo, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	gitRun(t, repo, "init", "-q")
	gitRun(t, repo, "commit", "-q", "--allow-empty", "-m", "first")
	db := filepath.Join(t.TempDir(), "agent.db")
	// Made by a process of this machine that is gone.
	hostname, _ := os.Hostname()
	m := &worktree.Manager{Dir: filepath.Join(filepath.Dir(db), worktree.DirName), Self: worktree.Owner{PID: 1 << 30, Host: hostname}}
	made := map[string]worktree.Record{}
	for _, name := range []string{"clean", "dirty", "ahead", "doomed"} {
		r, err := m.Create(ctx, repo, worktree.Spec{Name: name, Session: "s-" + name})
		if err != nil {
			t.Fatal(err)
		}
		made[name] = r
	}
	for _, name := range []string{"dirty", "doomed"} {
		if err := os.WriteFile(filepath.Join(made[name].Path, "wip.txt"), []byte("wip\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitRun(t, made["ahead"].Path, "commit", "-q", "--allow-empty", "-m", "ahead")

	out, err := runWorktree(t, db, "list", "-C", repo)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"NAME", "clean   agent/clean   clean", "dirty (1 file)", "ahead (1 commit)", "s-dirty", made["clean"].Path} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q:\n%s", want, out)
		}
	}
	out, err = runWorktree(t, db, "list", "-C", repo, "--json")
	var listed []worktreeJSON
	if err != nil || json.Unmarshal([]byte(out), &listed) != nil || len(listed) != 4 || listed[1].State != "dirty" || listed[1].Dirty != 1 {
		t.Errorf("list --json: %v\n%s", err, out)
	}

	if _, err := runWorktree(t, db, "remove", "dirty", "-C", repo); err == nil || exitCode(err) != ExitRuntime || !strings.Contains(err.Error(), "--force") {
		t.Errorf("remove of a dirty worktree: %v (exit %d), want exit 1 saying --force", err, exitCode(err))
	}
	if _, err := runWorktree(t, db, "remove", "nosuch", "-C", repo); exitCode(err) != ExitUsage {
		t.Errorf("remove of an unknown worktree: %v, want a usage error", err)
	}
	out, err = runWorktree(t, db, "remove", "doomed", "--force", "-C", repo)
	if err != nil || !strings.Contains(out, "removed worktree doomed") || !strings.Contains(out, "branch agent/doomed deleted") {
		t.Errorf("remove --force: %v\n%s", err, out)
	}

	out, err = runWorktree(t, db, "prune", "-C", repo)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"removed worktree clean", "branch agent/clean deleted", "removed worktree ahead", "branch agent/ahead kept: it holds 1 commit of its own",
		"kept worktree dirty (" + made["dirty"].Path + "): uncommitted changes (--force removes them)"} {
		if !strings.Contains(out, want) {
			t.Errorf("prune lacks %q:\n%s", want, out)
		}
	}
	if got := gitRun(t, repo, "branch", "--format=%(refname:short)"); got != "agent/ahead\nagent/dirty\nmain" {
		t.Errorf("branches after prune:\n%s", got)
	}
	if _, err := runWorktree(t, db, "list", "-C", t.TempDir()); exitCode(err) != ExitUsage {
		t.Errorf("list outside a repository: %v, want a usage error", err)
	}
}

// agent doctor counts the worktrees agent made for the repository, and
// those a crash left.
func TestDoctorCountsWorktrees(t *testing.T) {
	repo, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	gitRun(t, repo, "init", "-q")
	gitRun(t, repo, "commit", "-q", "--allow-empty", "-m", "first")
	data := t.TempDir()
	hostname, _ := os.Hostname()
	m := &worktree.Manager{Dir: filepath.Join(data, "agent", worktree.DirName), Self: worktree.Owner{PID: 1 << 30, Host: hostname}}
	if _, err := m.Create(context.Background(), repo, worktree.Spec{Name: "left"}); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	c := NewRootCmd(Streams{Out: &out, Err: &out}, envOf(map[string]string{"XDG_DATA_HOME": data}), nil)
	c.SetArgs([]string{"doctor", "--config", writeConfig(t, ""), "-C", repo})
	_ = c.Execute() // no model is configured: doctor fails for that
	if want := "worktrees          1 made by agent for this repository: 0 in use, 1 left by a crash, 0 with uncommitted changes"; !strings.Contains(out.String(), want) {
		t.Errorf("doctor lacks %q:\n%s", want, out.String())
	}
}
