package protect

import (
	"os"
	"path/filepath"
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
		".git":                       RiskGit,
		".git/config":                RiskGit,
		".git/hooks/pre-commit":      RiskGit,
		"sub/.git":                   RiskGit,
		"vendor/x/.git/config":       RiskGit,
		".GIT/config":                RiskGit,
		".git./config":               RiskGit,
		"a/../.git/hooks/x":          RiskGit,
		".bare/worktrees/w/gitdir":   RiskGit, // the .git file's git directory
		".bare/config":               RiskGit, // its common directory
		"agent.toml":                 RiskAgent,
		".claude/hooks/fmt.sh":       RiskProject, // a hook's script runs outside the sandbox
		".claude/settings.json":      RiskProject,
		"x/../.agent/hooks.toml":     RiskProject,
		".claudette/notes.md":        "",
		".data/agent/mcp-trust.json": RiskAgent,
		".ssh/authorized_keys":       RiskCredentials,
		"src/main.go":                "",
		".gitignore":                 "",
		".github/workflows/ci.yml":   "",
		"docs/.git-notes.md":         "",
		"agent.toml.example":         "",
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
