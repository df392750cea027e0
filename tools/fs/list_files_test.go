package fs

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-dev/agent/tools/toolstest"
)

func TestListFiles(t *testing.T) {
	root, _ := tree(t, map[string]string{
		"main.go":             "",
		"README.md":           "",
		"cmd/agent/run.go":    "",
		"cmd/agent/x_test.go": "",
		"cmd/doc.txt":         "",
		".github/ci.yml":      "",
		"empty/":              "",
		".git/config":         "",
		".git/HEAD":           "",
	})
	tool := ListFiles(root)
	tests := []struct {
		args string
		want []string
	}{
		{`{}`, []string{".github/ci.yml", "README.md", "cmd/agent/run.go", "cmd/agent/x_test.go", "cmd/doc.txt", "main.go"}},
		{`{"pattern": "**/*.go"}`, []string{"cmd/agent/run.go", "cmd/agent/x_test.go", "main.go"}},
		{`{"pattern": "*.go"}`, []string{"main.go"}},
		{`{"pattern": "**/*_test.go"}`, []string{"cmd/agent/x_test.go"}},
		{`{"pattern": "*.{md,txt}"}`, []string{"README.md"}},
		{`{"path": "cmd"}`, []string{"cmd/agent/run.go", "cmd/agent/x_test.go", "cmd/doc.txt"}},
		{`{"path": "cmd/", "pattern": "*.txt"}`, []string{"cmd/doc.txt"}},
		{`{"path": "./cmd/agent", "pattern": "run.*"}`, []string{"cmd/agent/run.go"}},
		{`{"path": "empty"}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			res := call(t, tool, tt.args)
			if res.IsError {
				t.Fatalf("error result: %s", res.Content)
			}
			got := lines(res.Content)
			if len(tt.want) == 0 {
				if !strings.HasPrefix(res.Content, "no files match") {
					t.Errorf("got %q, want a no-match note", res.Content)
				}
				return
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if res.Meta["count"] != len(tt.want) {
				t.Errorf("meta count = %v, want %d", res.Meta["count"], len(tt.want))
			}
		})
	}
}

func TestListFilesNoMatchHint(t *testing.T) {
	root, _ := tree(t, map[string]string{"a/b.go": ""})
	res := call(t, ListFiles(root), `{"pattern": "*.go"}`)
	if res.IsError || !strings.Contains(res.Content, `"**/*.go"`) {
		t.Errorf("got %+v, want a hint to use **/*.go", res)
	}
}

func TestListFilesLimit(t *testing.T) {
	files := map[string]string{}
	for i := range listFilesLimit + 5 {
		files[fmt.Sprintf("d%d/f%04d.txt", i%7, i)] = ""
	}
	root, _ := tree(t, files)
	res := call(t, ListFiles(root), `{}`)
	got := lines(res.Content)
	if len(got) != listFilesLimit+1 || !strings.Contains(got[listFilesLimit], "5 more files") {
		t.Fatalf("got %d lines ending %q, want %d paths and a note of 5 more", len(got), got[len(got)-1], listFilesLimit)
	}
	if !slices.IsSorted(got[:listFilesLimit]) {
		t.Errorf("paths are not sorted")
	}
	if res.Meta["count"] != listFilesLimit+5 || res.Meta["shown"] != listFilesLimit {
		t.Errorf("meta = %v", res.Meta)
	}
}

// gitignoreTree exercises the gitignore rules: nested files, negation,
// directory-only and anchored patterns, ** and escapes.
var gitignoreTree = map[string]string{
	".gitignore":             "# comment\n*.log\n!keep.log\nbuild/\n/top.txt\ndocs/**/gen_*\n\\#hash\nspace\\ \ntrail   \nlib/**\n!lib/keep\n",
	"a.go":                   "",
	"x.log":                  "",
	"keep.log":               "",
	"top.txt":                "",
	"sub/top.txt":            "",
	"build/out.o":            "",
	"sub/build/out.o":        "",
	"sub/build.txt":          "",
	"build.go":               "",
	"docs/gen_a.md":          "",
	"docs/x/y/gen_b.md":      "",
	"docs/x/real.md":         "",
	"#hash":                  "",
	"space ":                 "",
	"trail":                  "",
	"lib/drop.c":             "",
	"lib/keep":               "",
	"sub/.gitignore":         "*.tmp\n!important.log\n/local/\nnested/deep/\n",
	"sub/a.tmp":              "",
	"sub/important.log":      "",
	"sub/other.log":          "",
	"sub/local/x.go":         "",
	"sub/more/local/y.go":    "",
	"sub/nested/deep/z.go":   "",
	"sub/x/nested/deep/w.go": "",
	"c.tmp":                  "",
	"vendor/.gitignore":      "*\n!.gitignore\n!*.go\n",
	"vendor/v.go":            "",
	"vendor/v.txt":           "",
}

var gitignoreWant = []string{
	".gitignore", "a.go", "build.go", "c.tmp", "docs/x/real.md", "keep.log", "lib/keep",
	"sub/.gitignore", "sub/build.txt", "sub/important.log", "sub/more/local/y.go", "sub/top.txt",
	"sub/x/nested/deep/w.go", "vendor/.gitignore", "vendor/v.go",
}

func TestListFilesGitignore(t *testing.T) {
	root, _ := tree(t, gitignoreTree)
	res := call(t, ListFiles(root), `{}`)
	if got := lines(res.Content); !slices.Equal(got, gitignoreWant) {
		t.Errorf("got  %q\nwant %q", got, gitignoreWant)
	}
	// Listing a sub-directory still applies its parents' rules.
	res = call(t, ListFiles(root), `{"path": "sub"}`)
	want := []string{"sub/.gitignore", "sub/build.txt", "sub/important.log", "sub/more/local/y.go", "sub/top.txt", "sub/x/nested/deep/w.go"}
	if got := lines(res.Content); !slices.Equal(got, want) {
		t.Errorf("path sub: got %q, want %q", got, want)
	}
}

// TestGitignoreAgreesWithGit checks the same tree against git itself.
func TestGitignoreAgreesWithGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("git is not installed, and CI must run this test")
		}
		t.Skip("git is not installed")
	}
	_, dir := tree(t, gitignoreTree)
	if out, err := exec.Command("git", "-C", dir, "init", "-q").CombinedOutput(); err != nil {
		t.Skipf("git init: %v %s", err, out)
	}
	out, err := exec.Command("git", "-C", dir, "ls-files", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatal(err)
	}
	got := lines(filepath.ToSlash(string(out)))
	slices.Sort(got)
	if !slices.Equal(got, gitignoreWant) {
		t.Errorf("git lists  %q\nwe expect %q", got, gitignoreWant)
	}
}

func TestListFilesConformance(t *testing.T) {
	root, _ := tree(t, map[string]string{"a.txt": "a"})
	toolstest.Run(t, toolstest.Suite{
		Tool:          ListFiles(root),
		SchemaInvalid: []string{`{"pattern": 3}`, `{"path": true}`, `{"nope": 1}`},
		BadArgs:       []string{`{"path": ".."}`, `{"path": "/"}`, `{"path": "missing"}`, `{"path": "a.txt"}`, `{"pattern": "[a-"}`},
	})
}
