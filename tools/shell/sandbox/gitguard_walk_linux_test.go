package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// After its first look the guard reads again only the directories whose
// entries changed: a repository a later command creates deep in a tree the
// guard already knows, or in a directory the person made between two
// commands, is still found and neutralised, and an untouched tree is not
// listed again.
func TestTheGuardFindsNewRepositoriesAfterItsFirstLook(t *testing.T) {
	needGit(t)
	b := newBox(t, nil)
	b.needNamespaces()
	deep := filepath.Join(b.work, "a", "b", "c")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if res := b.run("true"); res.IsError {
		t.Fatalf("first command: %s", res.Content)
	}
	res := b.run("git init -q a/b/c/evil && printf '#!/bin/sh\\ntouch /tmp/ran\\n' > a/b/c/evil/.git/hooks/post-checkout && chmod +x a/b/c/evil/.git/hooks/post-checkout")
	if !strings.Contains(res.Content, "blocked-by-agent") {
		t.Errorf("the repository made deep in a known tree was not neutralised:\n%s", res.Content)
	}
	absent(t, filepath.Join(deep, "evil", ".git", "hooks", "post-checkout"))

	// The person makes a directory between two commands; the next command
	// makes a repository in it.
	afterThisTick()
	mine := filepath.Join(b.work, "mine", "sub")
	if err := os.MkdirAll(mine, 0o755); err != nil {
		t.Fatal(err)
	}
	afterThisTick()
	res = b.run("git init -q mine/sub/r && git -C mine/sub/r config core.fsmonitor 'touch /tmp/ran'")
	if !strings.Contains(res.Content, "mine/sub/r/.git") {
		t.Errorf("the repository made in the person's new directory was not neutralised:\n%s", res.Content)
	}
	if cfg, _ := os.ReadFile(filepath.Join(mine, "r", ".git", "config")); strings.Contains(string(cfg), "fsmonitor") {
		t.Errorf("core.fsmonitor survived:\n%s", cfg)
	}

	tr := b.sb.trees.trees[b.work]
	if tr == nil || !tr.dirs[deep] || !tr.dirs[mine] {
		t.Fatalf("the guard does not know the tree: %+v", tr)
	}
}
