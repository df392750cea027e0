package fs

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// askedBuffers are an editor's buffers that hold no file of their own
// (they read the disk as the editor does, following links) and record the
// paths they are asked for.
type askedBuffers struct {
	dir   string
	mu    sync.Mutex
	asked []string
}

func (b *askedBuffers) ReadFile(_ context.Context, rel string) ([]byte, bool, error) {
	b.mu.Lock()
	b.asked = append(b.asked, rel)
	b.mu.Unlock()
	data, err := os.ReadFile(filepath.Join(b.dir, filepath.FromSlash(rel))) // as an editor would: links followed
	return data, true, err
}

func (b *askedBuffers) WriteFile(context.Context, string, []byte) (bool, error) { return false, nil }

// An editor's buffers are asked for the path the tools resolved inside the
// root, never for a link the editor would follow out of it (issue 42's
// first: "a diff's read through a symlink that leads outside is refused
// too"); a link out of the root is refused before the buffers are asked.
func TestBuffersAreAskedForTheResolvedPath(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("OUTSIDE-SECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, dir := tree(t, map[string]string{"sub/real.txt": "inside\n"})
	if err := os.Symlink("sub/real.txt", filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "out.txt")); err != nil {
		t.Fatal(err)
	}
	b := &askedBuffers{dir: dir}
	ts := ToolsWith(root, Options{Buffers: b})
	if res := call(t, byNameIn(ts, "read_file"), `{"path":"link.txt"}`); res.IsError || !strings.Contains(res.Content, "inside") {
		t.Fatalf("read_file link.txt: %+v", res)
	}
	if res := call(t, byNameIn(ts, "read_file"), `{"path":"out.txt"}`); !res.IsError || strings.Contains(res.Content, "OUTSIDE-SECRET") {
		t.Errorf("read_file of a link out of the root: %+v", res)
	}
	if res := call(t, byNameIn(ts, "edit_file"), `{"path":"out.txt","old_string":"OUTSIDE","new_string":"x"}`); !res.IsError || strings.Contains(res.Content, "OUTSIDE-SECRET") {
		t.Errorf("edit_file of a link out of the root: %+v", res)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, rel := range b.asked {
		if rel != "sub/real.txt" {
			t.Errorf("the buffers were asked for %q, want only the resolved sub/real.txt", rel)
		}
	}
}
