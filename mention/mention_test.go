package mention

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/fs"
)

// tree writes files (slash paths to contents) below a temporary directory
// and returns the Mentions of it.
func tree(t *testing.T, files map[string]string) (*Mentions, string) {
	t.Helper()
	dir := t.TempDir()
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return New(root, Files{Read: fs.ReadFile(root), List: fs.ListFiles(root), Walk: fs.Files}), dir
}

func TestFind(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"explain @main.go please", []string{"main.go"}},
		{"@a.go and @b/ and @a.go again", []string{"a.go", "b/"}},
		{"mail me at me@example.com", nil},
		{"a lone @ sign", nil},
		{"line one\n@notes.txt", []string{"notes.txt"}},
		// A path with spaces is mentioned in quotes (completion writes them).
		{`read @"my notes.txt" and @a.go`, []string{"my notes.txt", "a.go"}},
		{`@"docs/old plans/" lists`, []string{"docs/old plans/"}},
		{`an unclosed @"my notes.txt`, []string{"my notes.txt"}},
		{`empty @"" quotes`, nil},
	} {
		if got := Find(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Find(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestExpandAttachesAFileAsReadFileShowsIt(t *testing.T) {
	m, _ := tree(t, map[string]string{"main.go": "package main\n\nfunc main() {}\n"})
	got, atts := m.Expand(context.Background(), "", "what does @main.go do?")
	want := "what does @main.go do?\n\n<attached path=\"main.go\">\n     1\tpackage main\n     2\t\n     3\tfunc main() {}\n</attached>"
	if got != want {
		t.Errorf("Expand =\n%s\nwant\n%s", got, want)
	}
	if len(atts) != 1 || atts[0].Path != "main.go" || atts[0].Dir || atts[0].Cut {
		t.Errorf("attachments = %+v", atts)
	}
	prompt, paths := Strip(got)
	if prompt != "what does @main.go do?" || !slices.Equal(paths, []string{"main.go"}) {
		t.Errorf("Strip = %q, %q", prompt, paths)
	}
}

func TestExpandTrailingPunctuationAndMissingPaths(t *testing.T) {
	m, _ := tree(t, map[string]string{"a.txt": "alpha\n"})
	got, atts := m.Expand(context.Background(), "", "compare @a.txt, @missing.txt and @a.txt.")
	if len(atts) != 1 || atts[0].Path != "a.txt" {
		t.Fatalf("attachments = %+v", atts)
	}
	if !strings.HasPrefix(got, "compare @a.txt, @missing.txt and @a.txt.\n\n") || strings.Count(got, "<attached") != 1 {
		t.Errorf("Expand = %q", got)
	}
	if got, atts := m.Expand(context.Background(), "", "nothing @here"); got != "nothing @here" || atts != nil {
		t.Errorf("a missing path changed the prompt: %q %+v", got, atts)
	}
}

func TestExpandCutsALargeFileWithANote(t *testing.T) {
	var b strings.Builder
	for i := range 900 {
		fmt.Fprintf(&b, "line %d %s\n", i+1, strings.Repeat("x", 60))
	}
	m, _ := tree(t, map[string]string{"big.txt": b.String()})
	got, atts := m.Expand(context.Background(), "", "@big.txt")
	if len(atts) != 1 || !atts[0].Cut || atts[0].Bytes > FileMax+200 {
		t.Fatalf("attachments = %+v, want one cut near %d bytes", atts, FileMax)
	}
	body := got[strings.Index(got, ">\n")+2:]
	lastShown := 0
	for l := range strings.Lines(body) {
		fmt.Sscanf(strings.TrimSpace(l), "%d", &lastShown)
		if strings.HasPrefix(l, "(attachment cut") {
			break
		}
	}
	note := fmt.Sprintf("(attachment cut at 32 KiB; read_file with offset=%d reads on)", lastShown+1)
	if !strings.Contains(got, note) {
		t.Errorf("no note %q in the attachment's end:\n%s", note, got[max(0, len(got)-300):])
	}
}

func TestExpandAttachesADirectoryListingHonouringGitignore(t *testing.T) {
	m, _ := tree(t, map[string]string{
		".gitignore": "*.log\nbuild/\n", "src/a.go": "package a\n", "src/b.go": "package a\n",
		"src/debug.log": "noise\n", "src/build/out.bin": "x",
	})
	got, atts := m.Expand(context.Background(), "", "look at @src/")
	if len(atts) != 1 || !atts[0].Dir || atts[0].Path != "src/" {
		t.Fatalf("attachments = %+v", atts)
	}
	if !strings.Contains(got, "<attached path=\"src/\">\nsrc/a.go\nsrc/b.go\n</attached>") {
		t.Errorf("the listing is not list_files' (or ignored files show):\n%s", got)
	}
	if _, atts := m.Expand(context.Background(), "", "and @src too"); len(atts) != 1 || !atts[0].Dir {
		t.Errorf("@src without a slash: %+v", atts)
	}
}

func TestExpandRefusesPathsOutsideTheRoot(t *testing.T) {
	m, dir := tree(t, map[string]string{"in.txt": "inside\n"})
	outside := filepath.Join(filepath.Dir(dir), "secret.txt")
	os.WriteFile(outside, []byte("secret\n"), 0o644)
	t.Cleanup(func() { os.Remove(outside) })
	os.Symlink(outside, filepath.Join(dir, "link.txt"))
	for _, p := range []string{"@../secret.txt", "@" + outside, "@link.txt", "@./../secret.txt"} {
		got, atts := m.Expand(context.Background(), "", "read "+p)
		if atts != nil || strings.Contains(got, "secret\n") {
			t.Errorf("%s reached outside the working directory: %q", p, got)
		}
	}
}

func TestExpandCapsTheTotal(t *testing.T) {
	files := map[string]string{}
	var prompt []string
	for i := range 6 {
		name := fmt.Sprintf("f%d.txt", i)
		files[name] = strings.Repeat(strings.Repeat("y", 99)+"\n", 400) // 40 KB each
		prompt = append(prompt, "@"+name)
	}
	m, _ := tree(t, files)
	got, atts := m.Expand(context.Background(), "", strings.Join(prompt, " "))
	total := 0
	for _, a := range atts {
		total += a.Bytes
	}
	if total > TotalMax+4*200 || !strings.Contains(got, "(not attached: the attachments of this prompt reached 128 KiB") {
		t.Errorf("attached %d bytes in %d attachments, want at most about %d and a note for the rest", total, len(atts), TotalMax)
	}
}

func TestCompleteIsFuzzyAndHonoursGitignore(t *testing.T) {
	m, _ := tree(t, map[string]string{
		".gitignore": "node_modules/\n*.tmp\n", "cmd/root.go": "", "cmd/headless.go": "", "tui/model.go": "",
		"tui/model_keys.go": "", "README.md": "", "node_modules/x/index.js": "", "scratch.tmp": "",
	})
	ctx := context.Background()
	if got := m.Complete(ctx, "", 10); !slices.Equal(got, []string{"cmd/", "tui/", ".gitignore", "README.md"}) {
		t.Errorf("Complete(\"\") = %q, want the top level", got)
	}
	if got := m.Complete(ctx, "modkeys", 3); len(got) == 0 || got[0] != "tui/model_keys.go" {
		t.Errorf("Complete(modkeys) = %q", got)
	}
	if got := m.Complete(ctx, "cmd", 5); len(got) == 0 || got[0] != "cmd/" {
		t.Errorf("Complete(cmd) = %q, want the directory first", got)
	}
	for _, q := range []string{"index", "scratch"} {
		if got := m.Complete(ctx, q, 5); len(got) != 0 {
			t.Errorf("Complete(%s) offers ignored files: %q", q, got)
		}
	}
}

func TestExpandSaysWhyAnExistingFileWasNotAttached(t *testing.T) {
	m, _ := tree(t, map[string]string{"logo.png": "\x89PNG\x00\x00binary"})
	got, atts := m.Expand(context.Background(), "", "what is @logo.png")
	if got != "what is @logo.png" {
		t.Errorf("a binary file changed the prompt: %q", got)
	}
	if len(atts) != 1 || atts[0].Bytes != 0 || !strings.Contains(atts[0].Skipped, "binary") {
		t.Errorf("attachments = %+v, want logo.png skipped as binary", atts)
	}
}

// A file whose name has spaces is attached when mentioned in quotes, as
// completion writes it; unquoted, its first word is a mention of its own
// and attaches nothing.
func TestExpandAttachesAQuotedPathWithSpaces(t *testing.T) {
	m, _ := tree(t, map[string]string{"my notes.txt": "walrus\n", "my": "wrong file\n"})
	got, atts := m.Expand(context.Background(), "", `summarise @"my notes.txt", please`)
	if len(atts) != 1 || atts[0].Path != "my notes.txt" || !strings.Contains(got, "1\twalrus") || strings.Contains(got, "wrong file") {
		t.Errorf("attachments %+v, prompt %q", atts, got)
	}
	if prompt, paths := Strip(got); prompt != `summarise @"my notes.txt", please` || !slices.Equal(paths, []string{"my notes.txt"}) {
		t.Errorf("Strip = %q, %q", prompt, paths)
	}
}

// The rule for ignored files: .gitignore keeps them out of completion and
// of a directory's listing, but a file the person names in full is
// attached, as read_file would read it when asked (the mention is the
// person's own request; .gitignore says what is noise, not what is secret).
func TestExpandAttachesAnIgnoredFileNamedInFull(t *testing.T) {
	m, _ := tree(t, map[string]string{".gitignore": "*.log\n", "debug.log": "the crash\n"})
	if got := m.Complete(context.Background(), "debug", 5); len(got) != 0 {
		t.Errorf("completion offers an ignored file: %q", got)
	}
	got, atts := m.Expand(context.Background(), "", "why @debug.log")
	if len(atts) != 1 || !strings.Contains(got, "1\tthe crash") {
		t.Errorf("an ignored file named in full was not attached: %+v %q", atts, got)
	}
}

// An attached picture's size is the picture's: "shot.png (6.0 KiB)", not
// the few bytes of the text that stands for it.
func TestTheNoteOfAnAttachedPictureSaysItsSize(t *testing.T) {
	note := Note([]Attachment{{Path: "shot.png", Bytes: 40, Images: []tools.Image{{MediaType: "image/png", Data: make([]byte, 6<<10)}}}})
	if note != "Attached shot.png (6.0 KiB)." {
		t.Errorf("note %q", note)
	}
}
