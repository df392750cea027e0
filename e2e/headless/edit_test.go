//go:build linux

package headless

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// treeHash hashes every file of dir: path, mode and content.
func treeHash(t *testing.T, dir string) string {
	t.Helper()
	var entries []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, _ := d.Info()
		data, _ := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		sum := sha256.Sum256(data)
		entries = append(entries, rel+" "+info.Mode().String()+" "+hex.EncodeToString(sum[:]))
		return nil
	})
	sort.Strings(entries)
	sum := sha256.Sum256([]byte(strings.Join(entries, "\n")))
	return hex.EncodeToString(sum[:])
}

func TestReadEditVerifyHeadless(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	e2e.WriteFile(t, dir, "greet.go", "package main\n\nfunc greet() string { return \"hello\" }\n")
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "r", Name: "read_file", Arguments: `{"path":"greet.go"}`}),
		scripted.ToolCalls(scripted.Call{ID: "e", Name: "edit_file", Arguments: `{"path":"greet.go","old_string":"\"hello\"","new_string":"\"hello, world\""}`}),
		scripted.ToolCalls(scripted.Call{ID: "v", Name: "grep", Arguments: `{"pattern":"hello, world"}`}),
		scripted.Text("greet now says hello, world."),
	)
	res := e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "--db", filepath.Join(t.TempDir(), "a.db"), "-p", "--output-format", "stream-json", "make greet say hello, world")})
	if res.Code != 0 {
		t.Fatalf("exit %d: %s", res.Code, res.Stderr)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "greet.go"))
	if !strings.Contains(string(data), `return "hello, world"`) {
		t.Errorf("greet.go after the edit:\n%s", data)
	}
	if got := e2e.ToolResults(srv.Requests()[3])["v"]; !strings.Contains(got, "greet.go:3:") {
		t.Errorf("the verifying grep did not find the edit: %q", got)
	}
	var diff string
	for _, o := range e2e.JSONLines(t, res.Stdout) {
		if o["type"] == "tool_call_finished" && o["name"] == "edit_file" {
			meta, _ := o["meta"].(map[string]any)
			diff, _ = meta["diff"].(string)
		}
	}
	if !strings.Contains(diff, `-func greet() string { return "hello" }`) || !strings.Contains(diff, `+func greet() string { return "hello, world" }`) {
		t.Errorf("stream-json's tool_call_finished should carry the diff, got %q", diff)
	}
}

// TestUndoRestoresTheTreeAndKeepsAnOutsideChange: undo puts the tree back
// as it was before the last prompt, what its command changed included; a
// file the person changed since is kept and named, and undo --force
// restores it.
func TestUndoRestoresTheTreeAndKeepsAnOutsideChange(t *testing.T) {
	t.Parallel()
	dir, db := t.TempDir(), filepath.Join(t.TempDir(), "a.db")
	e2e.WriteFile(t, dir, "a.txt", "alpha\n")
	e2e.WriteFile(t, dir, "b.txt", "bravo\n")
	e2e.WriteFile(t, dir, "c.txt", "charlie\r\nsecond line\r\n")
	e2e.WriteFile(t, dir, "e.txt", "echo\n")
	os.Chmod(filepath.Join(dir, "b.txt"), 0o755)
	before := treeHash(t, dir)
	srv := scripted.New(t,
		scripted.ToolCalls(
			scripted.Call{ID: "e1", Name: "edit_file", Arguments: `{"path":"a.txt","old_string":"alpha","new_string":"ALPHA"}`},
			scripted.Call{ID: "e2", Name: "edit_file", Arguments: `{"path":"b.txt","old_string":"bravo","new_string":"BRAVO"}`},
			scripted.Call{ID: "e3", Name: "edit_file", Arguments: `{"path":"c.txt","old_string":"second line","new_string":"2nd line"}`},
			scripted.Call{ID: "w1", Name: "write_file", Arguments: `{"path":"d.txt","content":"delta\n"}`},
			scripted.Call{ID: "b1", Name: "bash", Arguments: `{"command":"sed -i s/echo/ECHO/ e.txt"}`},
		),
		scripted.Text("Five files changed."),
	)
	res := e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "--db", db, "--allow-bash", "-p", "-v", "change them")})
	if res.Code != 0 || !strings.Contains(res.Stderr, "changed files: a.txt, b.txt, c.txt, d.txt") {
		t.Fatalf("exit %d, stderr %q", res.Code, res.Stderr)
	}
	if treeHash(t, dir) == before {
		t.Fatal("the turn changed nothing")
	}
	undo := e2e.Run(t, e2e.Invocation{Dir: dir, Args: []string{"--db", db, "undo"}})
	if undo.Code != 0 || !strings.Contains(undo.Stdout, "removed d.txt") || !strings.Contains(undo.Stdout, "restored e.txt") {
		t.Fatalf("undo: exit %d, stdout %q, stderr %q", undo.Code, undo.Stdout, undo.Stderr)
	}
	if treeHash(t, dir) != before {
		t.Errorf("after undo the tree differs from before the turn")
	}
	if again := e2e.Run(t, e2e.Invocation{Dir: dir, Args: []string{"--db", db, "undo"}}); again.Code != 2 || !strings.Contains(again.Stderr, "nothing to undo") {
		t.Errorf("a second undo: exit %d, stderr %q", again.Code, again.Stderr)
	}

	// A new turn edits a.txt; the person changes it too; undo keeps it and changes nothing.
	srv2 := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "e4", Name: "edit_file", Arguments: `{"path":"a.txt","old_string":"alpha","new_string":"ALPHA"}`}),
		scripted.Text("Changed."),
	)
	if res := e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv2, "--db", db, "-c", "-p", "again")}); res.Code != 0 {
		t.Fatalf("second turn: exit %d: %s", res.Code, res.Stderr)
	}
	e2e.WriteFile(t, dir, "a.txt", "the person's own edit\n")
	changed := treeHash(t, dir)
	kept := e2e.Run(t, e2e.Invocation{Dir: dir, Args: []string{"--db", db, "undo"}})
	if kept.Code != 0 || !strings.Contains(kept.Stdout, "changed outside the agent since the checkpoint; --force restores them:\n  modify a.txt") {
		t.Errorf("undo after an outside change: exit %d, stdout %q, stderr %q", kept.Code, kept.Stdout, kept.Stderr)
	}
	if treeHash(t, dir) != changed {
		t.Errorf("an undo that kept the person's change changed files")
	}
	forced := e2e.Run(t, e2e.Invocation{Dir: dir, Args: []string{"--db", db, "undo", "--force"}})
	if forced.Code != 0 || !strings.Contains(forced.Stdout, "restored a.txt") {
		t.Errorf("undo --force: exit %d, stdout %q, stderr %q", forced.Code, forced.Stdout, forced.Stderr)
	}
	if treeHash(t, dir) != before {
		t.Errorf("after undo --force the tree differs from before the two prompts")
	}
	if again := e2e.Run(t, e2e.Invocation{Dir: dir, Args: []string{"--db", db, "undo"}}); again.Code != 2 || !strings.Contains(again.Stderr, "nothing to undo") {
		t.Errorf("undo with both prompts undone: exit %d, stderr %q", again.Code, again.Stderr)
	}
}

// TestResumingElsewhereWorksInTheSessionsDirectory resumes a session from
// another directory: its edits and its undo happen in the session's own
// directory, never in the one it was resumed from.
func TestResumingElsewhereWorksInTheSessionsDirectory(t *testing.T) {
	t.Parallel()
	home, elsewhere, db := t.TempDir(), t.TempDir(), filepath.Join(t.TempDir(), "a.db")
	e2e.WriteFile(t, home, "f.txt", "one\n")
	e2e.WriteFile(t, elsewhere, "f.txt", "one\n")
	srv := scripted.New(t,
		scripted.Text("Started."),
		scripted.ToolCalls(scripted.Call{ID: "e", Name: "edit_file", Arguments: `{"path":"f.txt","old_string":"one","new_string":"two"}`}),
		scripted.Text("Edited."),
	)
	first := e2e.Run(t, e2e.Invocation{Dir: home, Args: e2e.AgentArgs(srv, "--db", db, "-p", "--output-format", "json", "start")})
	id := e2e.SessionIDOf(t, first.Stdout)
	if res := e2e.Run(t, e2e.Invocation{Dir: elsewhere, Args: e2e.AgentArgs(srv, "--db", db, "-r", id, "-p", "edit f.txt")}); res.Code != 0 {
		t.Fatalf("resume: exit %d: %s", res.Code, res.Stderr)
	}
	if got, _ := os.ReadFile(filepath.Join(home, "f.txt")); string(got) != "two\n" {
		t.Errorf("the session's own f.txt = %q, want the edit", got)
	}
	if got, _ := os.ReadFile(filepath.Join(elsewhere, "f.txt")); string(got) != "one\n" {
		t.Errorf("the directory it was resumed from changed: %q", got)
	}
	if res := e2e.Run(t, e2e.Invocation{Dir: elsewhere, Args: []string{"--db", db, "undo", "--session", id}}); res.Code != 0 {
		t.Fatalf("undo: exit %d: %s", res.Code, res.Stderr)
	}
	if got, _ := os.ReadFile(filepath.Join(home, "f.txt")); string(got) != "one\n" {
		t.Errorf("undo did not restore the session's f.txt: %q", got)
	}
}

func TestPermissionModeAskDeniesEditsHeadless(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	e2e.WriteFile(t, dir, "f.txt", "one\n")
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "e", Name: "edit_file", Arguments: `{"path":"f.txt","old_string":"one","new_string":"two"}`}),
		scripted.Text("Could not edit."),
	)
	res := e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "--db", filepath.Join(t.TempDir(), "a.db"), "--permission-mode", "ask", "-p", "edit")})
	if res.Code != 0 {
		t.Fatalf("exit %d: %s", res.Code, res.Stderr)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "f.txt")); string(got) != "one\n" {
		t.Errorf("an edit ran in ask mode with nobody to ask: %q", got)
	}
	if r := e2e.ToolResults(srv.Requests()[1])["e"]; !strings.Contains(r, "--permission-mode auto") {
		t.Errorf("the denial should say how to allow edits: %q", r)
	}
}
