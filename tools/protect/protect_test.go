package protect

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestWriteRisk(t *testing.T) {
	dir := "/home/u/work"
	p := New(Paths{
		Dir:         dir,
		Agent:       []string{"/home/u/work", "/home/u/work/.data/agent", "/home/u/.config/agent"},
		AgentFiles:  []string{"/home/u/work/agent.toml"},
		Credentials: []string{"/home/u/work/.ssh"},
		Project:     []string{"/home/u/work/.claude", "/home/u/work/.agent"},
	}, func(path string) ([]byte, error) {
		switch path {
		case "/home/u/work/.git":
			return []byte("gitdir: .bare/worktrees/w\n"), nil
		case "/home/u/work/.bare/worktrees/w/commondir":
			return []byte("../..\n"), nil
		}
		return nil, os.ErrNotExist
	})
	for rel, want := range map[string]string{
		".git":                              RiskGit,
		".git/config":                       RiskGit,
		".git/hooks/pre-commit":             RiskGit,
		"sub/.git":                          RiskGit,
		"vendor/x/.git/config":              RiskGit,
		".GIT/config":                       RiskGit,
		".git./config":                      RiskGit,
		"a/../.git/hooks/x":                 RiskGit,
		".bare/worktrees/w/gitdir":          RiskGit, // the .git file's git directory
		".bare/config":                      RiskGit, // its common directory
		"agent.toml":                        RiskAgent,
		".claude/hooks/fmt.sh":              RiskProject, // a hook's script runs outside the sandbox
		".claude/settings.json":             RiskProject,
		"x/../.agent/hooks.toml":            RiskProject,
		".claudette/notes.md":               "",
		"packages/app/.claude/hooks/fmt.sh": RiskProject, // a nested one runs in a session started there
		"packages/lib/.agent/hooks.toml":    RiskProject,
		"a/.Claude/settings.json":           RiskProject,
		"packages/app/claude/notes.md":      "",
		".data/agent/mcp-trust.json":        RiskAgent,
		".ssh/authorized_keys":              RiskCredentials,
		"src/main.go":                       "",
		".gitignore":                        "",
		".github/workflows/ci.yml":          "",
		"docs/.git-notes.md":                "",
		"agent.toml.example":                "",
	} {
		if got := p.WriteRisk(rel); got != want {
			t.Errorf("WriteRisk(%q) = %q, want %q", rel, got, want)
		}
	}
}

func TestDefaultCredentials(t *testing.T) {
	got := DefaultCredentials("/home/u")
	for _, want := range []string{".ssh", ".aws", ".netrc", ".config/gh", ".docker", ".kube", ".gnupg"} {
		found := false
		for _, g := range got {
			found = found || g == filepath.Join("/home/u", want)
		}
		if !found {
			t.Errorf("%s is not among the default credentials", want)
		}
	}
	if DefaultCredentials("") != nil || DefaultCredentials("relative") != nil {
		t.Error("no home: no credentials paths")
	}
}

func TestGuardGrantsOneWriteEach(t *testing.T) {
	g := NewGuard(Paths{Dir: "/w"})
	if g.Take(".git/config") {
		t.Fatal("taken without a grant")
	}
	g.Grant(".git/config")
	if !g.Take(".git/config") || g.Take(".git/config") {
		t.Fatal("a grant is one write")
	}
	var none *Guard
	if none.Take("x") || none.Risk(".git/config") != "" {
		t.Fatal("a nil guard protects and grants nothing")
	}
}

// The sandbox gets the agent's directories and only the files that exist:
// it would make a missing one up as a directory.
func TestSandboxProtectedSkipsMissingFiles(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "agent.toml")
	if err := os.WriteFile(cfg, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	claude := filepath.Join(dir, ".claude")
	if err := os.Mkdir(claude, 0o755); err != nil {
		t.Fatal(err)
	}
	p := New(Paths{Dir: dir, Agent: []string{filepath.Join(dir, "data")}, AgentFiles: []string{cfg, filepath.Join(dir, "data", "mcp-trust.json")},
		Project: []string{claude, filepath.Join(dir, ".agent")}}, nil)
	got := p.SandboxProtected(os.Lstat)
	if len(got) != 3 || got[0] != filepath.Join(dir, "data") || got[1] != cfg || got[2] != claude {
		t.Errorf("SandboxProtected = %q", got)
	}
}

// An agent directory that holds the working directory (a worktree in the
// data directory) is protected beside the way down to it, not whole: the
// working directory stays writable, the database and the other worktrees
// do not.
func TestSandboxProtectedAroundAWorkingDirectoryInside(t *testing.T) {
	data := t.TempDir()
	wt := filepath.Join(data, "worktrees", "repo-1", "mine")
	for _, d := range []string{wt, filepath.Join(data, "worktrees", "repo-1", "other"), filepath.Join(data, "worktrees", "repo-2"), filepath.Join(data, "memory")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(data, "agent.db"), filepath.Join(data, "worktrees", "repo-1", "mine.json")} {
		if err := os.WriteFile(f, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	config := t.TempDir()
	p := New(Paths{Dir: wt, Agent: []string{config, data}}, nil)
	got := p.SandboxProtected(os.Lstat)
	want := []string{config, filepath.Join(data, "agent.db"), filepath.Join(data, "memory"),
		filepath.Join(data, "worktrees", "repo-2"), filepath.Join(data, "worktrees", "repo-1", "mine.json"), filepath.Join(data, "worktrees", "repo-1", "other")}
	if !slices.Equal(got, want) {
		t.Errorf("SandboxProtected =\n%q\nwant\n%q", got, want)
	}
}

// A guard made With other paths shares the approvals of the one it was
// made from: a grant through either is taken once, by either.
func TestGuardWithSharesApprovals(t *testing.T) {
	parent := NewGuard(New(Paths{Dir: "/work"}, nil))
	child := parent.With(New(Paths{Dir: "/wt"}, nil))
	if child.Paths().Dir != "/wt" {
		t.Errorf("the child's paths are %+v", child.Paths())
	}
	parent.Grant(".claude/x")
	if !child.Take(".claude/x") || parent.Take(".claude/x") || child.Take(".claude/x") {
		t.Error("a grant through the parent should be taken once, by the child")
	}
	child.Grant("a")
	if !parent.Take("a") {
		t.Error("a grant through the child should reach the parent")
	}
}

func TestNestedProjectDirectoriesAreKeptReadOnly(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"packages/app/.claude/hooks", "packages/lib/.agent", "src/deep/er/.claude", ".git/x/.claude", "docs/claude"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	got := New(Paths{Dir: dir}, nil).SandboxProtected(os.Lstat)
	want := []string{filepath.Join(dir, "packages/app/.claude"), filepath.Join(dir, "packages/lib/.agent"), filepath.Join(dir, "src/deep/er/.claude")}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("SandboxProtected =\n%q\nwant\n%q", got, want)
	}
	if got := NestedProject(dir, 2); len(got) != 0 {
		t.Errorf("NestedProject with a bound of 2 directories = %q, want none (they lie deeper)", got)
	}
}
