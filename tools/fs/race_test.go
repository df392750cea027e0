package fs

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agent-dev/agent/tools/protect"
)

// swapper replaces the symlink link with one to each of targets in turn,
// atomically (a new link renamed over it), until stop is closed or max
// swaps were made. It returns when it has stopped.
func swapper(t *testing.T, link string, targets []string, max int, stop <-chan struct{}) func() {
	t.Helper()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tmp := link + ".swap"
		for i := 0; i < max; i++ {
			select {
			case <-stop:
				return
			default:
			}
			os.Remove(tmp)
			if err := os.Symlink(targets[i%len(targets)], tmp); err != nil {
				t.Error(err)
				return
			}
			if err := os.Rename(tmp, link); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	return wg.Wait
}

// snapshot is every entry of dir (slash path relative to it) with the
// content of each file.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[rel] = ""
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The attack of issue 42: a command keeps swapping a directory symlink
// between a safe folder and .git while write_file and edit_file write
// through it. A write is checked and made through one resolution, so
// whatever the timing, nothing lands in .git: it is exactly as it was
// after thousands of calls, and the writes that went through landed in
// the safe folder.
func TestSymlinkSwapRaceNeverWritesGitMetadata(t *testing.T) {
	const rounds = 1000
	root, dir := tree(t, map[string]string{".git/config": "[core]\n", ".git/hooks/": "", "safe/config": "[core]\n", "safe/hooks/": ""})
	symlink(t, "safe", filepath.Join(dir, "d"))
	before := snapshot(t, filepath.Join(dir, ".git"))
	guard := protect.NewGuard(protect.New(protect.Paths{Dir: dir}, nil))
	opts := Options{Protect: guard}
	ts := ToolsWith(root, opts)
	read := ts[1]
	write, edit := WriteFile(root, opts), EditFile(root, opts)

	stop := make(chan struct{})
	wait := swapper(t, filepath.Join(dir, "d"), []string{"safe", ".git"}, 50*rounds, stop)
	var wrote, edited int
	for i := range rounds {
		// A new file: in .git/hooks it would run at the next commit.
		if res := call(t, write, fmt.Sprintf(`{"path":"d/hooks/pre-commit-%d","content":"#!/bin/sh\necho planted\n"}`, i)); !res.IsError {
			wrote++
		}
		// An existing file with the same content on both sides, read
		// first: only the resolution tells them apart.
		if err := os.WriteFile(filepath.Join(dir, "safe", "config"), []byte("[core]\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		call(t, read, `{"path":"d/config"}`)
		if res := call(t, edit, `{"path":"d/config","old_string":"[core]\n","new_string":"[core]\n\tfsmonitor = touch /tmp/pwned\n"}`); !res.IsError {
			edited++
		}
	}
	close(stop)
	wait()

	if after := snapshot(t, filepath.Join(dir, ".git")); !mapsEqual(before, after) {
		t.Fatalf(".git changed under the race:\nbefore %q\nafter  %q", before, after)
	}
	if wrote == 0 || edited == 0 {
		t.Fatalf("no write went through the safe side (%d writes, %d edits): the test did not exercise the race", wrote, edited)
	}
	hooks, _ := os.ReadDir(filepath.Join(dir, "safe", "hooks"))
	if len(hooks) != wrote {
		t.Errorf("%d writes went through but safe/hooks holds %d files", wrote, len(hooks))
	}
	t.Logf("%d of %d writes and %d of %d edits went through, all into safe/", wrote, rounds, edited, rounds)
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	keys := make([]string, 0, len(a))
	for k := range a {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if v, ok := b[k]; !ok || v != a[k] {
			return false
		}
	}
	return true
}

// The same race against reads: with the home directory as the working
// directory, a symlink swapped between a plain folder and ~/.ssh never lets
// read_file or grep return a key.
func TestSymlinkSwapRaceNeverReadsCredentials(t *testing.T) {
	const rounds = 1000
	root, dir := tree(t, map[string]string{".ssh/id_ed25519": "KEY-SECRET\n", "pub/id_ed25519": "public\n"})
	symlink(t, "pub", filepath.Join(dir, "k"))
	guard := protect.NewGuard(protect.New(protect.Paths{Dir: dir, Credentials: protect.DefaultCredentials(dir)}, nil))
	ts := ToolsWith(root, Options{Protect: guard})
	read, grep := ts[1], ts[2]
	stop := make(chan struct{})
	wait := swapper(t, filepath.Join(dir, "k"), []string{"pub", ".ssh"}, 50*rounds, stop)
	var reads int
	for range rounds {
		res := call(t, read, `{"path":"k/id_ed25519"}`)
		if strings.Contains(res.Content, "KEY-SECRET") {
			t.Errorf("read_file returned a key: %s", res.Content)
			break
		}
		if !res.IsError {
			reads++
		}
		for _, args := range []string{`{"pattern":"SECRET|public","path":"k"}`, `{"pattern":"SECRET|public","path":"k/id_ed25519"}`} {
			if res := call(t, grep, args); strings.Contains(res.Content, "KEY-SECRET") {
				t.Errorf("grep %s returned a key: %s", args, res.Content)
			}
		}
	}
	close(stop)
	wait()
	if reads == 0 {
		t.Fatal("no read went through the plain side: the test did not exercise the race")
	}
}
