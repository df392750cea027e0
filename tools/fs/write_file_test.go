package fs

import (
	"context"
	"encoding/json"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/toolstest"
)

func writeArgs(path, content string) string {
	b, _ := json.Marshal(writeFileArgs{Path: path, Content: content})
	return string(b)
}

// session returns the tools of one session on a tree, by name.
func session(t *testing.T, files map[string]string, j Journal) (map[string]tools.Tool, string) {
	t.Helper()
	root, dir := tree(t, files)
	ts := map[string]tools.Tool{}
	for _, tool := range ToolsWith(root, Options{Sessions: NewSessions(func(string) Journal { return j })}) {
		ts[tool.Definition().Name] = tool
	}
	return ts, dir
}

func mustOK(t *testing.T, res tools.Result) tools.Result {
	t.Helper()
	if res.IsError {
		t.Fatalf("error result: %s", res.Content)
	}
	return res
}

func mustRefuse(t *testing.T, res tools.Result, want string) {
	t.Helper()
	if !res.IsError || !strings.Contains(res.Content, want) {
		t.Fatalf("got %+v, want an error with %q", res, want)
	}
}

func TestWriteFileCreates(t *testing.T) {
	ts, dir := session(t, map[string]string{"old.txt": "x\n"}, nil)
	res := mustOK(t, call(t, ts["write_file"], writeArgs("notes.md", "one\ntwo\n")))
	if res.Content != "Created notes.md (2 lines)" {
		t.Errorf("content = %q", res.Content)
	}
	wantDiff := "--- /dev/null\n+++ b/notes.md\n@@ -0,0 +1,2 @@\n+one\n+two\n"
	if res.Meta["diff"] != wantDiff || res.Meta["created"] != true || res.Meta["added"] != 2 || res.Meta["removed"] != 0 || res.Meta["path"] != "notes.md" {
		t.Errorf("meta = %#v", res.Meta)
	}
	if readBack(t, dir, "notes.md") != "one\ntwo\n" {
		t.Errorf("wrong content")
	}
	if fi, _ := os.Stat(filepath.Join(dir, "notes.md")); fi.Mode().Perm()&^0o022 != 0o644&^0o022 {
		t.Errorf("mode = %v", fi.Mode())
	}

	res = mustOK(t, call(t, ts["write_file"], writeArgs("a/b/c/deep.go", "package c")))
	if res.Meta["path"] != "a/b/c/deep.go" || readBack(t, dir, "a/b/c/deep.go") != "package c" {
		t.Errorf("nested: %+v", res)
	}
	// Absolute paths inside work too.
	mustOK(t, call(t, ts["write_file"], writeArgs(filepath.Join(dir, "abs.txt"), "")))
	if readBack(t, dir, "abs.txt") != "" {
		t.Errorf("abs.txt")
	}
	// Nothing else was left behind (temporary files).
	entries, _ := os.ReadDir(dir)
	if len(entries) != 4 {
		t.Errorf("entries = %v", entries)
	}
}

func TestWriteFileOverwrite(t *testing.T) {
	ts, dir := session(t, map[string]string{"f.txt": "1\n2\n3\n", "g.txt": "g\n"}, nil)
	w := ts["write_file"]

	// Never read: refused.
	mustRefuse(t, call(t, w, writeArgs("f.txt", "new\n")), "you have not read it in this session: read it with read_file first")
	// grep and list_files do not count as reading.
	mustOK(t, call(t, ts["grep"], `{"pattern": "2"}`))
	mustRefuse(t, call(t, w, writeArgs("f.txt", "new\n")), "not read")

	// Read by range (a part of the file), then written: allowed.
	mustOK(t, call(t, ts["read_file"], `{"path": "f.txt", "offset": 2, "limit": 1}`))
	res := mustOK(t, call(t, w, writeArgs("f.txt", "1\ntwo\n3\n")))
	if res.Content != "Wrote f.txt: +1 -1 lines" || res.Meta["created"] != false {
		t.Errorf("result = %+v", res)
	}
	// And again without reading: the tracker knows the agent's own write.
	mustOK(t, call(t, w, writeArgs("f.txt", "1\ntwo\nthree\n")))
	if readBack(t, dir, "f.txt") != "1\ntwo\nthree\n" {
		t.Errorf("content = %q", readBack(t, dir, "f.txt"))
	}
	// And after an edit_file.
	mustOK(t, call(t, ts["edit_file"], editArgs("f.txt", "1", "one", false)))
	mustOK(t, call(t, w, writeArgs("f.txt", "one\n")))

	// Changed on disk since: refused, until read again.
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("someone else\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRefuse(t, call(t, w, writeArgs("f.txt", "mine\n")), "has changed on disk since you last read it")
	if readBack(t, dir, "f.txt") != "someone else\n" {
		t.Errorf("a refused write changed the file")
	}
	mustOK(t, call(t, ts["read_file"], `{"path": "./f.txt"}`))
	mustOK(t, call(t, w, writeArgs("f.txt", "mine\n")))

	// A read that failed is not a read.
	mustRefuse(t, call(t, ts["read_file"], `{"path": "g.txt", "offset": 5}`), "past the end")
	mustRefuse(t, call(t, w, writeArgs("g.txt", "x")), "not read")

	// The same content: nothing to do, no error.
	mustOK(t, call(t, ts["read_file"], `{"path": "g.txt"}`))
	res = mustOK(t, call(t, w, writeArgs("g.txt", "g\n")))
	if res.Meta["diff"] != "" || !strings.Contains(res.Content, "unchanged") {
		t.Errorf("same content: %+v", res)
	}
}

func TestWriteFileKeepsModeAndLineEndings(t *testing.T) {
	ts, dir := session(t, map[string]string{"run.sh": "#!/bin/sh\r\necho\r\n"}, nil)
	p := filepath.Join(dir, "run.sh")
	if err := os.Chmod(p, 0o755); err != nil {
		t.Fatal(err)
	}
	mustOK(t, call(t, ts["read_file"], `{"path": "run.sh"}`))
	res := mustOK(t, call(t, ts["write_file"], writeArgs("run.sh", "#!/bin/sh\necho hi\n")))
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o755 {
		t.Errorf("mode = %v, want 0755", fi.Mode().Perm())
	}
	if got := readBack(t, dir, "run.sh"); got != "#!/bin/sh\r\necho hi\r\n" {
		t.Errorf("content = %q", got)
	}
	if res.Meta["added"] != 1 || res.Meta["removed"] != 1 {
		t.Errorf("meta = %v", res.Meta)
	}
}

func TestWriteFileRefusals(t *testing.T) {
	ts, dir := session(t, map[string]string{"dir/x.txt": "x", "file": "f"}, nil)
	symlink(t, "missing-target", filepath.Join(dir, "dangling"))
	for args, want := range map[string]string{
		writeArgs("dir", "x"):          "is a directory",
		writeArgs(".", "x"):            "is the working directory",
		writeArgs("", "x"):             "is the working directory",
		writeArgs("file/sub.txt", "x"): "file/sub.txt",
		writeArgs("dangling", "x"):     "symlink to a file that does not exist",
	} {
		mustRefuse(t, call(t, ts["write_file"], args), want)
	}
	if _, err := os.Lstat(filepath.Join(dir, "missing-target")); err == nil {
		t.Errorf("wrote through a dangling symlink")
	}
}

func TestWriteFileConformance(t *testing.T) {
	root, _ := tree(t, map[string]string{"f.txt": "a\n"})
	toolstest.Run(t, toolstest.Suite{
		Tool:          WriteFile(root, Options{}),
		SchemaInvalid: []string{`{}`, `{"path": "x"}`, `{"content": "x"}`, `{"path": "x", "content": 1}`, `{"path": "x", "content": "", "mode": 1}`},
		BadArgs: []string{
			writeArgs("../outside.txt", "x"),
			writeArgs("/tmp/outside-"+t.Name()+".txt", "x"),
			writeArgs("f.txt", "blind overwrite"),
		},
	})
	if _, err := os.Stat("/tmp/outside-" + t.Name() + ".txt"); err == nil {
		t.Errorf("wrote outside")
	}
}

var _ interface {
	Preview(context.Context, tools.Call) (tools.Result, error)
} = (*writeFile)(nil)

// A read by range of a large file records the hash of the whole file.
func TestRangedReadOfLargeFileCounts(t *testing.T) {
	big := strings.Repeat("a line of text\n", 40000) // 600 KB: read by range only
	ts, dir := session(t, map[string]string{"big.txt": big}, nil)
	mustRefuse(t, call(t, ts["read_file"], `{"path": "big.txt"}`), "read it by range")
	mustRefuse(t, call(t, ts["write_file"], writeArgs("big.txt", "x")), "not read")
	mustOK(t, call(t, ts["read_file"], `{"path": "big.txt", "offset": 10, "limit": 5}`))
	mustOK(t, call(t, ts["write_file"], writeArgs("big.txt", "short\n")))
	if readBack(t, dir, "big.txt") != "short\n" {
		t.Errorf("not written")
	}
}

// Reads and changes from many goroutines keep the tracker consistent (run
// with -race).
func TestConcurrentUse(t *testing.T) {
	files := map[string]string{}
	for i := range 8 {
		files[fmt.Sprintf("f%d.txt", i)] = "0\n"
	}
	ts, dir := session(t, files, nil)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := fmt.Sprintf("f%d.txt", i)
			for k := range 10 {
				if res, _ := ts["read_file"].Run(context.Background(), tools.Call{Args: json.RawMessage(`{"path": "` + name + `"}`)}); res.IsError {
					t.Errorf("read: %s", res.Content)
				}
				if res, _ := ts["write_file"].Run(context.Background(), tools.Call{Args: json.RawMessage(writeArgs(name, fmt.Sprintf("%d\n", k+1)))}); res.IsError {
					t.Errorf("write: %s", res.Content)
				}
			}
		}()
	}
	wg.Wait()
	for i := range 8 {
		if got := readBack(t, dir, fmt.Sprintf("f%d.txt", i)); got != "10\n" {
			t.Errorf("f%d.txt = %q", i, got)
		}
	}
}

func TestReadsBelongToTheirSession(t *testing.T) {
	root, _ := tree(t, map[string]string{"f.txt": "1\n"})
	sessions := NewSessions(nil)
	ts := map[string]tools.Tool{}
	for _, tool := range ToolsWith(root, Options{Sessions: sessions}) {
		ts[tool.Definition().Name] = tool
	}
	run := func(name, session, args string) tools.Result {
		t.Helper()
		res, err := ts[name].Run(context.Background(), tools.Call{Session: session, Args: json.RawMessage(args)})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	mustOK(t, run("read_file", "a", `{"path": "f.txt"}`))
	// Another session (a subagent, a second ACP session) read nothing.
	mustRefuse(t, run("write_file", "b", writeArgs("f.txt", "2\n")), "not read")
	mustOK(t, run("write_file", "a", writeArgs("f.txt", "2\n")))
	sessions.Forget("a") // the session starts again
	mustRefuse(t, run("write_file", "a", writeArgs("f.txt", "3\n")), "not read")
}

// cancellingJournal cancels the turn's context in Before, as an Esc that
// lands in the middle of a change, and remembers what After saw.
type cancellingJournal struct {
	cancel         context.CancelFunc
	afterCalled    bool
	afterCancelled bool
}

func (j *cancellingJournal) Before(context.Context, string, bool, []byte, iofs.FileMode) error {
	j.cancel()
	return nil
}

func (j *cancellingJournal) After(ctx context.Context, _ string, _ []byte) error {
	j.afterCalled, j.afterCancelled = true, ctx.Err() != nil
	return nil
}

// A change made while the turn is being cancelled is still recorded with a
// live context, so undo does not take it for an outside change.
func TestJournalAfterOutlivesCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	j := &cancellingJournal{cancel: cancel}
	root, dir := tree(t, map[string]string{"f.txt": "old\n"})
	if _, err := EditFile(root, Options{Sessions: NewSessions(func(string) Journal { return j })}).Run(ctx, tools.Call{Args: json.RawMessage(editArgs("f.txt", "old", "new", false))}); err != nil {
		t.Fatal(err)
	}
	changed := readBack(t, dir, "f.txt") == "new\n"
	if changed && (!j.afterCalled || j.afterCancelled) {
		t.Errorf("the file changed but After was called=%v with a cancelled context=%v", j.afterCalled, j.afterCancelled)
	}
}
