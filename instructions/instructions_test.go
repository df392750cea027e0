package instructions_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/instructions"
)

// write writes text to path, making its directory.
func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// layout is a home and a repository with a sub-directory to work in.
func layout(t *testing.T) (home, top, dir string) {
	t.Helper()
	tmp := t.TempDir()
	home, top = filepath.Join(tmp, "home"), filepath.Join(tmp, "repo")
	dir = filepath.Join(top, "svc", "api")
	if err := os.MkdirAll(filepath.Join(top, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return home, top, dir
}

func names(s instructions.Set) []string {
	var out []string
	for _, f := range s.Files {
		out = append(out, f.Name)
	}
	return out
}

// Every memory file Claude Code reads is read, the user's first, then the
// repository's from its top down to the working directory, the local file
// after the shared one at each level; a parent above the repository is not.
func TestLoadReadsClaudeCodesFilesInOrder(t *testing.T) {
	home, top, dir := layout(t)
	write(t, filepath.Join(filepath.Dir(top), "CLAUDE.md"), "above the repository")
	write(t, filepath.Join(home, ".claude", "CLAUDE.md"), "user: answer in British English")
	write(t, filepath.Join(top, "CLAUDE.md"), "top: run make test")
	write(t, filepath.Join(top, "CLAUDE.local.md"), "top local: my sandbox URL")
	write(t, filepath.Join(top, "svc", ".claude", "CLAUDE.md"), "svc: services share a logger")
	write(t, filepath.Join(dir, "AGENTS.md"), "api: agents file")
	write(t, filepath.Join(dir, "CLAUDE.md"), "api: handlers return errors")
	write(t, filepath.Join(top, ".claude", "rules", "style.md"), "# Style\nTabs, not spaces.")

	s := instructions.Load(instructions.Options{Dir: dir, Home: home})
	want := []string{"~/.claude/CLAUDE.md", "CLAUDE.md", ".claude/rules/style.md", "CLAUDE.local.md", "svc/.claude/CLAUDE.md",
		"svc/api/AGENTS.md", "svc/api/CLAUDE.md"}
	if got := names(s); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("files = %q, want %q", got, want)
	}
	p := s.Prompt()
	if strings.Contains(p, "above the repository") {
		t.Error("a CLAUDE.md above the repository's top reached the prompt")
	}
	for _, text := range []string{"British English", "run make test", "Tabs, not spaces.", "my sandbox URL", "share a logger", "handlers return errors", `<instructions file="svc/api/CLAUDE.md">`} {
		if !strings.Contains(p, text) {
			t.Errorf("prompt lacks %q:\n%s", text, p)
		}
	}
	if len(s.Warnings) != 0 {
		t.Errorf("warnings: %q", s.Warnings)
	}
}

// A CLAUDE.md that is a link to AGENTS.md, or a copy of it, goes into the
// prompt once.
func TestLoadReadsALinkOrACopyOnce(t *testing.T) {
	for _, how := range []string{"link", "copy"} {
		t.Run(how, func(t *testing.T) {
			_, top, _ := layout(t)
			write(t, filepath.Join(top, "AGENTS.md"), "Use the Makefile.\n")
			if how == "link" {
				if err := os.Symlink("AGENTS.md", filepath.Join(top, "CLAUDE.md")); err != nil {
					t.Fatal(err)
				}
			} else {
				write(t, filepath.Join(top, "CLAUDE.md"), "Use the Makefile.")
			}
			s := instructions.Load(instructions.Options{Dir: top})
			if n := strings.Count(s.Prompt(), "Use the Makefile."); n != 1 {
				t.Fatalf("the text is in the prompt %d times (files %q)", n, names(s))
			}
		})
	}
}

// @path imports are followed relative to the importing file, from the
// home directory, five hops deep; not inside code; not outside the
// repository and home; never into credentials. A repository's file
// imports from the home directory only the person's own instructions
// (~/.claude/**/*.md), never their dotfiles.
func TestLoadFollowsImports(t *testing.T) {
	home, top, _ := layout(t)
	outside := filepath.Join(filepath.Dir(top), "outside.md")
	write(t, outside, "OUTSIDE")
	write(t, filepath.Join(home, ".ssh", "notes.md"), "SECRET")
	write(t, filepath.Join(home, ".claude", "prefs.md"), "PREFS")
	write(t, filepath.Join(home, ".bash_history"), "HISTORY")
	write(t, filepath.Join(home, ".claude", "CLAUDE.md"), "My keys: @~/.ssh/notes.md")
	write(t, filepath.Join(top, "CLAUDE.md"), strings.Join([]string{
		"See @docs/arch.md for the design.",
		"Mine: @~/.claude/prefs.md",
		"History: @~/.bash_history",
		"Not an import: `@docs/code.md` nor:",
		"```",
		"@docs/fenced.md",
		"```",
		"Outside: @" + outside,
		"Keys: @~/.ssh/notes.md",
		"Mail me@example.com and @missing.md",
		"Chain: @c/1.md",
	}, "\n"))
	write(t, filepath.Join(top, "docs", "arch.md"), "ARCH")
	write(t, filepath.Join(top, "docs", "code.md"), "CODE")
	write(t, filepath.Join(top, "docs", "fenced.md"), "FENCED")
	for i := 1; i <= 7; i++ {
		write(t, filepath.Join(top, "c", string(rune('0'+i))+".md"), "CHAIN"+string(rune('0'+i))+" @"+string(rune('0'+i+1))+".md")
	}
	denied := func(abs string) bool { return strings.HasPrefix(abs, filepath.Join(home, ".ssh")) }
	s := instructions.Load(instructions.Options{Dir: top, Home: home, Denied: denied})
	p := s.Prompt()
	for _, in := range []string{"ARCH", "PREFS", "CHAIN1", "CHAIN5"} {
		if !strings.Contains(p, in) {
			t.Errorf("prompt lacks %s (files %q)", in, names(s))
		}
	}
	for _, out := range []string{"CODE", "FENCED", "OUTSIDE", "SECRET", "CHAIN6", "HISTORY"} {
		if strings.Contains(p, out) {
			t.Errorf("prompt holds %s (files %q)", out, names(s))
		}
	}
	w := strings.Join(s.Warnings, "\n")
	if !strings.Contains(w, "outside.md skipped: it lies outside") || !strings.Contains(w, "~/.ssh/notes.md skipped: it holds credentials") ||
		!strings.Contains(w, ".bash_history (in CLAUDE.md) skipped: a repository's file imports from your home only ~/.claude/**/*.md") {
		t.Errorf("warnings = %q", s.Warnings)
	}
	if strings.Contains(w, "missing.md") || strings.Contains(w, "example.com") {
		t.Errorf("a missing import or an address was warned of: %q", s.Warnings)
	}
}

// An import that reaches credentials through a symlink (a dotfiles
// folder linked to ~/.ssh, a link in the repository's own tree) is
// skipped as the credentials path itself is.
func TestImportsReachNoCredentialsThroughSymlinks(t *testing.T) {
	home, top, _ := layout(t)
	write(t, filepath.Join(home, ".ssh", "id_rsa"), "PRIVATE KEY")
	if err := os.Symlink(".ssh", filepath.Join(home, "dotfiles")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(home, ".claude", "CLAUDE.md"), "Read @~/dotfiles/id_rsa first.")
	denied := func(abs string) bool { return strings.HasPrefix(abs, filepath.Join(home, ".ssh")) }
	s := instructions.Load(instructions.Options{Dir: top, Home: home, Denied: denied})
	if strings.Contains(s.Prompt(), "PRIVATE KEY") {
		t.Errorf("the prompt holds the key, read through ~/dotfiles (files %q)", names(s))
	}
	if w := strings.Join(s.Warnings, "\n"); !strings.Contains(w, "~/dotfiles/id_rsa skipped: it holds credentials") {
		t.Errorf("warnings = %q", s.Warnings)
	}
}

// A rule with paths: applies to the files its patterns match, relative to
// the directory holding its .claude/rules; its text is not in the prompt.
func TestRulesWithPathsMatchTheirFiles(t *testing.T) {
	_, top, _ := layout(t)
	write(t, filepath.Join(top, ".claude", "rules", "frontend", "react.md"), "---\npaths:\n  - \"web/**/*.{ts,tsx}\"\n---\nREACT RULE")
	write(t, filepath.Join(top, ".claude", "rules", "go.md"), "---\npaths: \"**/*.go\"\n---\nGO RULE")
	s := instructions.Load(instructions.Options{Dir: top})
	if strings.Contains(s.Prompt(), "RULE") || len(s.Rules) != 2 {
		t.Fatalf("rules = %+v, prompt:\n%s", s.Rules, s.Prompt())
	}
	for path, want := range map[string]string{
		"web/src/App.tsx": "REACT RULE", "cmd/main.go": "GO RULE", "main.go": "GO RULE", "README.md": "",
	} {
		var got []string
		for _, r := range s.Match(filepath.Join(top, path)) {
			got = append(got, r.Text)
		}
		if strings.Join(got, ",") != want {
			t.Errorf("Match(%s) = %q, want %q", path, got, want)
		}
	}
	if n := instructions.Note(s.Match(filepath.Join(top, "a.go"))); !strings.Contains(n, `file=".claude/rules/go.md" paths="**/*.go"`) {
		t.Errorf("note = %q", n)
	}
}

// Files past the total cap are left out with a warning naming them; a
// file past its own cap is cut with a note.
func TestLoadCapsSizes(t *testing.T) {
	_, top, _ := layout(t)
	big := strings.Repeat("x", instructions.MaxFileBytes+100)
	write(t, filepath.Join(top, "CLAUDE.md"), big)
	write(t, filepath.Join(top, "AGENTS.md"), big+"a")
	write(t, filepath.Join(top, "CLAUDE.local.md"), big+"b")
	write(t, filepath.Join(top, ".claude", "CLAUDE.md"), big+"c")
	s := instructions.Load(instructions.Options{Dir: top})
	if len(s.Files) != 2 {
		t.Fatalf("files = %q", names(s))
	}
	if !strings.Contains(s.Files[0].Text, "(AGENTS.md was cut here)") {
		t.Errorf("the first file's end: %q", s.Files[0].Text[len(s.Files[0].Text)-40:])
	}
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "CLAUDE.local.md") {
		t.Errorf("warnings = %q", s.Warnings)
	}
}
