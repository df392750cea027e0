package fs

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agent-dev/agent/tools"
)

const secret = "TOP-SECRET-OUTSIDE"

// escapeTree returns a working directory beside a directory "outside" that
// holds a secret, with symlinks from inside to outside and a loop.
func escapeTree(t *testing.T) (root *os.Root, work, outside string) {
	t.Helper()
	base := t.TempDir()
	work, outside = filepath.Join(base, "work"), filepath.Join(base, "outside")
	for _, d := range []string{work, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, content := range map[string]string{
		filepath.Join(outside, "secret.txt"): secret + "\n",
		filepath.Join(work, "inside.txt"):    "harmless\n",
	} {
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	symlink(t, filepath.Join(outside, "secret.txt"), filepath.Join(work, "file-link"))
	symlink(t, outside, filepath.Join(work, "dir-link"))
	symlink(t, "../outside/secret.txt", filepath.Join(work, "rel-link"))
	symlink(t, "loop-b", filepath.Join(work, "loop-a"))
	symlink(t, "loop-a", filepath.Join(work, "loop-b"))
	symlink(t, "inside.txt", filepath.Join(work, "ok-link"))
	root, err := os.OpenRoot(work)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return root, work, outside
}

func TestPathEscapes(t *testing.T) {
	root, _, outside := escapeTree(t)
	q := strconv.Quote
	paths := []string{
		"..", "../outside/secret.txt", "sub/../../outside/secret.txt",
		filepath.Join(outside, "secret.txt"), outside,
		"file-link", "rel-link", "dir-link", "dir-link/secret.txt", "loop-a",
	}
	for _, p := range paths {
		for _, tc := range []struct {
			tool string
			args string
		}{
			{"read_file", `{"path": ` + q(p) + `}`},
			{"grep", `{"pattern": "SECRET", "path": ` + q(p) + `}`},
			{"list_files", `{"path": ` + q(p) + `}`},
		} {
			t.Run(tc.tool+" "+p, func(t *testing.T) {
				res := call(t, byName(root, tc.tool), tc.args)
				if !res.IsError {
					t.Errorf("want an error result, got %q", res.Content)
				}
				if strings.Contains(res.Content, secret) {
					t.Errorf("the secret leaked: %q", res.Content)
				}
			})
		}
	}
}

// Walking the working directory skips symlinks, so nothing outside shows.
func TestWalksDoNotFollowSymlinks(t *testing.T) {
	root, _, _ := escapeTree(t)
	res := call(t, Grep(root), `{"pattern": "SECRET|harmless"}`)
	if res.IsError || res.Content != "inside.txt:1:harmless\n" {
		t.Errorf("grep = %+v", res)
	}
	res = call(t, ListFiles(root), `{}`)
	if res.IsError || res.Content != "inside.txt\n" {
		t.Errorf("list_files = %+v", res)
	}
}

// Paths inside the working directory work however they are spelt.
func TestPathsInside(t *testing.T) {
	root, work, _ := escapeTree(t)
	for _, p := range []string{"inside.txt", "./inside.txt", filepath.Join(work, "inside.txt"), "ok-link", "x/../inside.txt"} {
		res := call(t, ReadFile(root), `{"path": `+strconv.Quote(p)+`}`)
		if res.IsError || !strings.Contains(res.Content, "harmless") {
			t.Errorf("read_file %s = %+v", p, res)
		}
	}
	res := call(t, Grep(root), `{"pattern": "harm", "path": `+strconv.Quote(work)+`}`)
	if res.IsError || !strings.Contains(res.Content, "inside.txt:1:harmless") {
		t.Errorf("grep with the absolute working directory = %+v", res)
	}
}

func byName(root *os.Root, name string) tools.Tool {
	for _, t := range Tools(root) {
		if t.Definition().Name == name {
			return t
		}
	}
	panic(name)
}
