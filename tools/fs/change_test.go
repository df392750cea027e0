package fs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agent-dev/agent/tools"
)

// The editing tools never change anything outside the working directory,
// however the path is spelt.
func TestWritePathEscapes(t *testing.T) {
	paths := []string{
		"..", "../outside/secret.txt", "sub/../../outside/secret.txt", "../outside/new.txt",
		"file-link", "rel-link", "dir-link", "dir-link/secret.txt", "dir-link/new.txt", "loop-a",
	}
	for _, p := range paths {
		for _, tool := range []string{"edit_file", "write_file"} {
			t.Run(tool+" "+p, func(t *testing.T) {
				root, work, outside := escapeTree(t)
				paths := append([]string{p}, filepath.Join(outside, "secret.txt"), filepath.Join(outside, "new.txt"), outside)
				ts := ToolsWith(root, Options{})
				for _, q := range paths {
					args := writeArgs(q, "overwritten")
					if tool == "edit_file" {
						args = editArgs(q, secret, "overwritten", false)
					}
					// Even after a read attempt.
					call(t, byNameIn(ts, "read_file"), `{"path": `+strconv.Quote(q)+`}`)
					res := call(t, byNameIn(ts, tool), args)
					if !res.IsError {
						t.Errorf("%s: want an error result, got %q", q, res.Content)
					}
					if strings.Contains(res.Content, secret) {
						t.Errorf("%s: the secret leaked: %q", q, res.Content)
					}
				}
				if got, _ := os.ReadFile(filepath.Join(outside, "secret.txt")); string(got) != secret+"\n" {
					t.Errorf("the file outside changed: %q", got)
				}
				if entries, _ := os.ReadDir(outside); len(entries) != 1 {
					t.Errorf("files appeared outside: %v", entries)
				}
				for _, link := range []string{"file-link", "rel-link", "dir-link"} {
					if fi, err := os.Lstat(filepath.Join(work, link)); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
						t.Errorf("%s is no longer a symlink", link)
					}
				}
			})
		}
	}
}

// A symlink inside that leads to a file inside can be written through.
func TestWriteThroughInsideSymlink(t *testing.T) {
	root, work, _ := escapeTree(t)
	ts := ToolsWith(root, Options{})
	mustOK(t, call(t, byNameIn(ts, "read_file"), `{"path": "ok-link"}`))
	mustOK(t, call(t, byNameIn(ts, "write_file"), writeArgs("ok-link", "changed\n")))
	if got := readBack(t, work, "inside.txt"); got != "changed\n" {
		t.Errorf("inside.txt = %q", got)
	}
	if fi, err := os.Lstat(filepath.Join(work, "ok-link")); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("ok-link is no longer a symlink")
	}
}

func byNameIn(ts []tools.Tool, name string) tools.Tool {
	for _, t := range ts {
		if t.Definition().Name == name {
			return t
		}
	}
	panic(name)
}

type previewer interface {
	tools.Tool
	Preview(context.Context, tools.Call) (tools.Result, error)
}

// Preview gives the result Run gives, diff included, and changes nothing.
func TestPreview(t *testing.T) {
	files := map[string]string{"f.txt": "a\nb\nc\n", "crlf.txt": "x\r\ny\r\n"}
	tests := []struct {
		tool, args string
		read       string // file read first
		wantErr    string
	}{
		{"edit_file", editArgs("f.txt", "b", "B\nB2", false), "", ""},
		{"edit_file", editArgs("crlf.txt", "x\ny", "z", false), "", ""},
		{"edit_file", editArgs("f.txt", "nope", "B", false), "", "not found"},
		{"edit_file", editArgs("../f.txt", "a", "B", false), "", "outside"},
		{"write_file", writeArgs("new/dir/n.txt", "n\n"), "", ""},
		{"write_file", writeArgs("f.txt", "whole\n"), "f.txt", ""},
		{"write_file", writeArgs("f.txt", "whole\n"), "", "not read"},
	}
	for _, tc := range tests {
		t.Run(tc.tool+" "+tc.args, func(t *testing.T) {
			hash := func(dir string) string {
				var b strings.Builder
				filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
					data, _ := os.ReadFile(p)
					fmt.Fprintf(&b, "%s %q\n", p, data)
					return nil
				})
				return b.String()
			}
			ts, dir := session(t, files, nil)
			if tc.read != "" {
				mustOK(t, call(t, ts["read_file"], `{"path": `+strconv.Quote(tc.read)+`}`))
			}
			tool := ts[tc.tool].(previewer)
			before := hash(dir)
			pre, err := tool.Preview(context.Background(), tools.Call{Args: json.RawMessage(tc.args)})
			if err != nil {
				t.Fatal(err)
			}
			if hash(dir) != before {
				t.Fatalf("Preview changed the tree")
			}
			pre2, _ := tool.Preview(context.Background(), tools.Call{Args: json.RawMessage(tc.args)})
			run := call(t, tool, tc.args)
			if tc.wantErr != "" {
				mustRefuse(t, pre, tc.wantErr)
				if run.Content != pre.Content {
					t.Errorf("Run says %q, Preview %q", run.Content, pre.Content)
				}
				return
			}
			mustOK(t, run)
			for _, k := range []string{"path", "diff", "added", "removed", "created"} {
				if pre.Meta[k] != run.Meta[k] || pre2.Meta[k] != run.Meta[k] {
					t.Errorf("%s: Preview %v, Run %v", k, pre.Meta[k], run.Meta[k])
				}
			}
			if pre.Meta["diff"] == "" {
				t.Errorf("empty diff")
			}
		})
	}
}

// journal records the calls it gets.
type journal struct {
	calls     []string
	failAfter bool
}

func (j *journal) Before(_ context.Context, path string, existed bool, content []byte, mode fs.FileMode) error {
	j.calls = append(j.calls, fmt.Sprintf("before %s %v %q %v", path, existed, content, mode.Perm()))
	if strings.HasSuffix(path, "forbidden.txt") {
		return errors.New("disk full")
	}
	return nil
}

func (j *journal) After(_ context.Context, path string, content []byte) error {
	j.calls = append(j.calls, fmt.Sprintf("after %s %q", path, content))
	if j.failAfter {
		return errors.New("store closed")
	}
	return nil
}

func TestJournal(t *testing.T) {
	j := &journal{}
	ts, dir := session(t, map[string]string{"f.txt": "a\n", "forbidden.txt": "keep\n"}, j)
	mustOK(t, call(t, ts["edit_file"], editArgs("f.txt", "a", "b", false)))
	mustOK(t, call(t, ts["write_file"], writeArgs("sub/new.txt", "n")))
	mustOK(t, call(t, ts["write_file"], writeArgs("f.txt", "c\n")))
	mustRefuse(t, call(t, ts["write_file"], writeArgs("nope/../../x", "n")), "outside") // no journal call
	want := []string{
		`before f.txt true "a\n" -rw-r--r--`, `after f.txt "b\n"`,
		`before sub/new.txt false "" ----------`, `after sub/new.txt "n"`,
		`before f.txt true "b\n" -rw-r--r--`, `after f.txt "c\n"`,
	}
	if strings.Join(j.calls, "\n") != strings.Join(want, "\n") {
		t.Errorf("journal calls:\n%s\nwant\n%s", strings.Join(j.calls, "\n"), strings.Join(want, "\n"))
	}

	// A failing Before aborts the change.
	j.calls = nil
	mustRefuse(t, call(t, ts["edit_file"], editArgs("forbidden.txt", "keep", "lose", false)), "forbidden.txt was not changed: saving its prior state for undo failed: disk full")
	mustRefuse(t, call(t, ts["write_file"], writeArgs("forbidden.txt", "lose")), "not read")
	mustRefuse(t, call(t, ts["write_file"], writeArgs("sub2/forbidden.txt", "new")), "disk full")
	if readBack(t, dir, "forbidden.txt") != "keep\n" || len(j.calls) != 2 {
		t.Errorf("the change went ahead: %q, calls %v", readBack(t, dir, "forbidden.txt"), j.calls)
	}
	if _, err := os.Stat(filepath.Join(dir, "sub2")); err == nil {
		t.Errorf("a refused creation made its directory")
	}

	// A failing After is reported, but the change stands.
	j.failAfter = true
	res := mustOK(t, call(t, ts["edit_file"], editArgs("f.txt", "c", "d", false)))
	if !strings.Contains(res.Content, "recording it for undo failed: store closed") || res.Meta["journal_error"] != "store closed" {
		t.Errorf("result = %+v", res)
	}
}
