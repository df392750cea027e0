package commands

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadNamesCommandsByFileAndFolder(t *testing.T) {
	project, user := t.TempDir(), t.TempDir()
	write(t, filepath.Join(project, "review.md"), "---\ndescription: Review a file\nargument-hint: [file]\nallowed-tools: Bash(git diff:*), Bash(git log:*)\n---\nReview $ARGUMENTS.\n")
	write(t, filepath.Join(project, "frontend", "component.md"), "# Make a component\nCreate $1 in $2.\n")
	write(t, filepath.Join(user, "review.md"), "the user's review")
	write(t, filepath.Join(user, "fix.md"), "Fix issue $ARGUMENTS")
	write(t, filepath.Join(user, "broken.md"), "---\ndescription: the front matter never ends\nx")
	cmds, warnings := Load(Dir{Path: project, Project: true}, Dir{Path: user}, Dir{Path: filepath.Join(user, "missing")})
	names := map[string]Command{}
	for _, c := range cmds {
		names[c.Name] = c
	}
	if len(cmds) != 3 {
		t.Fatalf("commands = %+v", cmds)
	}
	r := names["review"]
	if !r.Project || r.Description != "Review a file" || r.ArgumentHint != "[file]" || strings.Join(r.AllowedTools, "|") != "Bash(git diff:*)|Bash(git log:*)" {
		t.Errorf("review = %+v, want the project's", r)
	}
	if c := names["frontend:component"]; c.Description != "Make a component" {
		t.Errorf("namespaced command = %+v", c)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "broken.md") {
		t.Errorf("warnings = %q", warnings)
	}
}

func TestExpandSubstitutesArguments(t *testing.T) {
	s := &Set{Commands: []Command{
		{Name: "review", Body: "Review @$ARGUMENTS carefully."},
		{Name: "pair", Body: "Compare $0 with $1 ($2)."},
		{Name: "plain", Body: "Explain the build."},
	}}
	cases := []struct{ prompt, want string }{
		{"/review main.go", "Review @main.go carefully."},
		{"/pair a.go 'b c.go'", "Compare a.go with b c.go ($2)."}, // 0-based; past the last word: as written
		{"/plain the Makefile", "Explain the build.\n\nARGUMENTS: the Makefile"},
		{"/plain", "Explain the build."},
	}
	for _, c := range cases {
		e, ok := s.Expand(context.Background(), c.prompt)
		if !ok || e.Text != c.want {
			t.Errorf("Expand(%q) = %q, %v; want %q", c.prompt, e.Text, ok, c.want)
		}
	}
	for _, p := range []string{"/unknown x", "review main.go", "/help"} {
		if _, ok := s.Expand(context.Background(), p); ok {
			t.Errorf("Expand(%q) expanded", p)
		}
	}
}

func TestSnippetsRunOnlyWhenAllowed(t *testing.T) {
	var ran []string
	s := &Set{
		Commands: []Command{{Name: "st", AllowedTools: []string{"Bash(git status:*)"}, Body: "Status: !`git status --short`\nLog: !`git log -1`\nBad: !`git status; rm -rf x`"}},
		Run: func(_ context.Context, c string) (string, error) {
			ran = append(ran, c)
			return "M main.go\n", nil
		},
	}
	e, _ := s.Expand(context.Background(), "/st")
	if strings.Join(ran, "|") != "git status --short" {
		t.Errorf("ran %q, want only the allowed command", ran)
	}
	want := "Status: M main.go\nLog: (not run: git log -1)\nBad: (not run: git status; rm -rf x)"
	if e.Text != want {
		t.Errorf("text = %q, want %q", e.Text, want)
	}
	if len(e.Notes) != 2 || !strings.Contains(e.Notes[0], "allowed-tools") {
		t.Errorf("notes = %q", e.Notes)
	}
}

func TestAllows(t *testing.T) {
	cases := []struct {
		allowed []string
		command string
		want    bool
	}{
		{[]string{"Bash"}, "anything at all", true},
		{[]string{"Bash(git diff:*)"}, "git diff HEAD", true},
		{[]string{"Bash(git diff:*)"}, "git diffx", false},
		{[]string{"Bash(git diff:*)"}, "git diff && curl x", false},
		{[]string{"Bash(git diff:*)"}, "git diff > ~/.bashrc", false},
		{[]string{"Bash(/p/setup.sh:*)"}, `"/p/setup.sh" x 2>>log`, false},
		{[]string{"Bash(ls)"}, "ls", true},
		{[]string{"Bash(ls)"}, "ls -la", false},
		{[]string{"Read", "Edit"}, "ls", false},
		{nil, "ls", false},
	}
	for _, c := range cases {
		if got := Allows(c.allowed, c.command); got != c.want {
			t.Errorf("Allows(%q, %q) = %v", c.allowed, c.command, got)
		}
	}
}

func TestFieldsReadsTheFrontMatterTheseFilesUse(t *testing.T) {
	f, err := Fields("name: pdf\n# a comment\ndescription: Fill PDF forms.\n  Use for any .pdf file.\nallowed-tools:\n  - Bash(git status:*)\n  - 'Read'\nhint: [file, line]\nlong: >\n  one\n  two\nkept: |\n  a\n  b\nquoted: \"x: y\"\n")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"name": "pdf", "description": "Fill PDF forms. Use for any .pdf file.", "allowed-tools": "Bash(git status:*), Read",
		"hint": "file, line", "long": "one two", "kept": "a\nb", "quoted": "x: y"}
	for k, v := range want {
		if got := String(f, k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	for _, bad := range []string{"no colon here", "a: 1\na: 2", "- a list"} {
		if _, err := Fields(bad); err == nil {
			t.Errorf("Fields(%q) accepted it", bad)
		}
	}
}

func TestFieldsTakesAColonInAnUnquotedValue(t *testing.T) {
	f, err := Fields("description: Use when: the build fails")
	if err != nil || String(f, "description") != "Use when: the build fails" {
		t.Errorf("%v, %v", f, err)
	}
}
