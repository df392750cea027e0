package fs

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/toolstest"
)

func editArgs(path, old, new string, all bool) string {
	b, _ := json.Marshal(editFileArgs{Path: path, OldString: old, NewString: new, ReplaceAll: all})
	return string(b)
}

func readBack(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestEditFile(t *testing.T) {
	tests := []struct {
		name      string
		file      string // content of f.txt; "" means no file
		old, new  string
		all       bool
		want      string // content afterwards
		wantErr   string // substring of the error result
		wantText  string // substring of the result
		wantDiff  string // exact diff, when set
		wantAdded int
	}{
		{name: "unique", file: "a\nb\nc\n", old: "b", new: "B", want: "a\nB\nc\n",
			wantText: "Edited f.txt: +1 -1 lines", wantDiff: "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", wantAdded: 1},
		{name: "multi-line", file: "func f() {\n\treturn 1\n}\n", old: "\treturn 1\n", new: "\tx := 1\n\treturn x\n",
			want: "func f() {\n\tx := 1\n\treturn x\n}\n", wantText: "+2 -1 lines", wantAdded: 2},
		{name: "delete", file: "a\nb\nc\n", old: "b\n", new: "", want: "a\nc\n", wantText: "+0 -1"},
		{name: "missing", file: "a\nb\n", old: "zzz", new: "y", wantErr: "old_string was not found in f.txt; read the file again"},
		{name: "missing but whitespace differs", file: "x\nfunc f() {\n\treturn 1\n}\n", old: "func f() {\n    return 1\n}", new: "y",
			wantErr: "does match at line 2 if whitespace"},
		{name: "missing with line numbers", file: "a\nb\n", old: "     1\ta\n     2\tb", new: "y", wantErr: "line numbers read_file shows"},
		{name: "ambiguous", file: "x\ny\nx\nz\nx\n", old: "x", new: "w", wantErr: "occurs 3 times in f.txt, at lines 1, 3, 5"},
		{name: "ambiguous on one line", file: "x x\n", old: "x", new: "w", wantErr: "occurs 2 times in f.txt, at lines 1 (2 times)"},
		{name: "ambiguous overlapping", file: "q\naaa\n", old: "aa", new: "b", wantErr: "occurs 2 times in f.txt, at lines 2 (2 times)"},
		{name: "replace all", file: "x\ny\nx\nz\nx x\n", old: "x", new: "w", all: true, want: "w\ny\nw\nz\nw w\n",
			wantText: "Edited f.txt: 4 replacements, +3 -3 lines"},
		{name: "replace all once", file: "a\nb\n", old: "b", new: "c", all: true, want: "a\nc\n", wantText: "Edited f.txt: +1 -1"},
		{name: "crlf file, lf strings", file: "a\r\nb\r\nc\r\n", old: "a\nb\n", new: "A\nB\nnew\n", want: "A\r\nB\r\nnew\r\nc\r\n",
			wantDiff: "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,4 @@\n-a\r\n-b\r\n+A\r\n+B\r\n+new\r\n c\r\n"},
		{name: "crlf file, crlf strings", file: "a\r\nb\r\n", old: "a\r\nb", new: "x\r\ny", want: "x\r\ny\r\n"},
		{name: "lf file, crlf strings", file: "a\nb\n", old: "a\r\nb", new: "x\r\ny", want: "x\ny\n"},
		{name: "mixed endings", file: "a\nb\r\nc\nd\n", old: "b\r\nc", new: "B\r\nC", want: "a\nB\r\nC\nd\n"},
		{name: "only line endings differ", file: "a\nb\n", old: "a\nb", new: "a\r\nb", wantErr: "differ only in line endings"},
		{name: "no trailing newline", file: "a\nb", old: "b", new: "c", want: "a\nc",
			wantDiff: "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"},
		{name: "no trailing newline, add a line", file: "a", old: "a", new: "a\nb", want: "a\nb"},
		{name: "unicode", file: "naïve ☃ café\n日本語\n", old: "☃ café", new: "⛄ thé", want: "naïve ⛄ thé\n日本語\n"},
		{name: "unicode not split", file: "é\n", old: "\xa9", new: "x", wantErr: "not found"},
		{name: "same strings", file: "a\n", old: "a", new: "a", wantErr: "are the same"},
		{name: "empty old_string", file: "a\n", old: "", new: "x", wantErr: "use write_file"},
		{name: "missing file", old: "a", new: "b", wantErr: "does not exist; edit_file changes existing files, create it with write_file"},
		{name: "binary", file: "a\x00b\n", old: "a", new: "c", wantErr: "binary"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{}
			if tc.file != "" {
				files["f.txt"] = tc.file
			}
			root, dir := tree(t, files)
			res := call(t, EditFile(root, Options{}), editArgs("f.txt", tc.old, tc.new, tc.all))
			if tc.wantErr != "" {
				if !res.IsError || !strings.Contains(res.Content, tc.wantErr) {
					t.Fatalf("got %+v, want an error with %q", res, tc.wantErr)
				}
				if tc.file != "" && readBack(t, dir, "f.txt") != tc.file {
					t.Errorf("a failed edit changed the file")
				}
				return
			}
			if res.IsError {
				t.Fatalf("error: %s", res.Content)
			}
			if got := readBack(t, dir, "f.txt"); got != tc.want {
				t.Errorf("file = %q, want %q", got, tc.want)
			}
			if !strings.Contains(res.Content, tc.wantText) {
				t.Errorf("content %q does not contain %q", res.Content, tc.wantText)
			}
			diff := res.Meta["diff"].(string)
			if tc.wantDiff != "" && diff != tc.wantDiff {
				t.Errorf("diff =\n%s\nwant\n%s", diff, tc.wantDiff)
			}
			if tc.wantAdded != 0 && res.Meta["added"] != tc.wantAdded {
				t.Errorf("added = %v, want %d", res.Meta["added"], tc.wantAdded)
			}
			if got, err := applyDiff(tc.file, diff); err != nil || got != tc.want {
				t.Errorf("the diff does not turn the old file into the new one (%v):\n%s", err, diff)
			}
			if res.Meta["path"] != "f.txt" || res.Meta["created"] != false {
				t.Errorf("meta = %v", res.Meta)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Errorf("files left behind: %v", entries)
			}
		})
	}
}

func TestEditFileKeepsMode(t *testing.T) {
	root, dir := tree(t, map[string]string{"run.sh": "#!/bin/sh\necho hi\n"})
	p := filepath.Join(dir, "run.sh")
	if err := os.Chmod(p, 0o755); err != nil {
		t.Fatal(err)
	}
	res := call(t, EditFile(root, Options{}), editArgs("run.sh", "hi", "hello", false))
	if res.IsError {
		t.Fatal(res.Content)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o755 {
		t.Errorf("mode = %v, want 0755", fi.Mode().Perm())
	}
}

// A symlink inside the working directory stays a symlink; its target changes.
func TestEditFileThroughSymlink(t *testing.T) {
	root, dir := tree(t, map[string]string{"real.txt": "a\n"})
	symlink(t, "real.txt", filepath.Join(dir, "link.txt"))
	res := call(t, EditFile(root, Options{}), editArgs("link.txt", "a", "b", false))
	if res.IsError {
		t.Fatal(res.Content)
	}
	if fi, err := os.Lstat(filepath.Join(dir, "link.txt")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("link.txt is no longer a symlink: %v %v", fi, err)
	}
	if got := readBack(t, dir, "real.txt"); got != "b\n" {
		t.Errorf("real.txt = %q", got)
	}
}

func TestEditFileLarge(t *testing.T) {
	var b strings.Builder
	for b.Len() < 10<<20 {
		b.WriteString("some ordinary line of a large generated file, with ☃ in it\n")
	}
	big := b.String()
	n := strings.Count(big, "\n")
	mid := "MARKER in the middle\n"
	half := strings.Index(big[len(big)/2:], "\n") + len(big)/2 + 1
	big = big[:half] + mid + big[half:]
	root, dir := tree(t, map[string]string{"big.txt": big})
	tool := EditFile(root, Options{})

	res := call(t, tool, editArgs("big.txt", "MARKER", "marker", false))
	if res.IsError {
		t.Fatal(res.Content)
	}
	want := strings.Replace(big, "MARKER", "marker", 1)
	if readBack(t, dir, "big.txt") != want {
		t.Fatalf("wrong content after a unique edit")
	}
	if d := res.Meta["diff"].(string); !strings.Contains(d, "-MARKER in the middle\n+marker in the middle\n") || len(d) > 1000 {
		t.Errorf("diff = %q", d)
	}

	// Every line changes: n+1 replacements.
	res = call(t, tool, editArgs("big.txt", "☃", "snowman", true))
	if res.IsError {
		t.Fatal(res.Content)
	}
	want = strings.ReplaceAll(want, "☃", "snowman")
	if readBack(t, dir, "big.txt") != want {
		t.Fatalf("wrong content after replace_all")
	}
	if res.Meta["added"] != n || res.Meta["removed"] != n {
		t.Errorf("added %v removed %v, want %d each", res.Meta["added"], res.Meta["removed"], n)
	}

	// Many occurrences on one long line.
	line := strings.Repeat("ab", 2<<20)
	root, dir = tree(t, map[string]string{"line.txt": line})
	res = call(t, EditFile(root, Options{}), editArgs("line.txt", "a", "xy", true))
	if res.IsError || readBack(t, dir, "line.txt") != strings.Repeat("xyb", 2<<20) {
		t.Fatalf("replace_all on a long line: %v", res.Content)
	}
	if res.Meta["added"] != 1 || res.Meta["removed"] != 1 {
		t.Errorf("added %v removed %v, want 1 each", res.Meta["added"], res.Meta["removed"])
	}
}

func TestEditFileConformance(t *testing.T) {
	root, _ := tree(t, map[string]string{"f.txt": "a\nb\n"})
	toolstest.Run(t, toolstest.Suite{
		Tool:          EditFile(root, Options{}),
		SchemaInvalid: []string{`{}`, `{"path": "f.txt", "old_string": "a"}`, `{"path": 1, "old_string": "a", "new_string": "b"}`, `{"path": "f.txt", "old_string": "a", "new_string": "b", "replace_all": "yes"}`},
		BadArgs: []string{
			editArgs("../outside.txt", "a", "b", false),
			editArgs("/etc/passwd", "root", "toor", false),
			editArgs("f.txt", "missing", "b", false),
			editArgs("nope.txt", "a", "b", false),
			editArgs(".", "a", "b", false),
		},
	})
}

// A cancelled context changes nothing.
func TestEditFileCancelled(t *testing.T) {
	root, dir := tree(t, map[string]string{"f.txt": "a\n"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := EditFile(root, Options{}).Run(ctx, tools.Call{Args: json.RawMessage(editArgs("f.txt", "a", "b", false))})
	if err == nil && !res.IsError {
		t.Errorf("a cancelled edit succeeded: %+v", res)
	}
	if readBack(t, dir, "f.txt") != "a\n" {
		t.Errorf("a cancelled edit changed the file")
	}
}

var _ interface {
	Preview(context.Context, tools.Call) (tools.Result, error)
} = (*editFile)(nil)
