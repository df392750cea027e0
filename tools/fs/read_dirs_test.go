package fs

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/tools"
)

func TestReadFileReadsTheExtraFoldersOnly(t *testing.T) {
	root, _ := tree(t, map[string]string{"main.go": "package main\n"})
	_, outside := tree(t, map[string]string{"skills/pdf/SKILL.md": "---\n", "skills/pdf/forms.md": "fill the form\n", "secret.txt": "secret\n"})
	skill := filepath.Join(outside, "skills", "pdf")
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(skill, "link.txt")); err != nil {
		t.Fatal(err)
	}
	var rf tools.Tool
	for _, tl := range ToolsWith(root, Options{ReadDirs: []string{skill}}) {
		if tl.Definition().Name == "read_file" {
			rf = tl
		}
	}
	read := func(p string) tools.Result {
		args, _ := json.Marshal(map[string]string{"path": p})
		res, err := rf.Run(context.Background(), tools.Call{Args: args})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := read(filepath.Join(skill, "forms.md")); res.IsError || !strings.Contains(res.Content, "fill the form") {
		t.Errorf("a file of the skill's folder: %+v", res)
	}
	for _, p := range []string{filepath.Join(outside, "secret.txt"), filepath.Join(skill, "..", "secret.txt"), filepath.Join(skill, "link.txt")} {
		if res := read(p); !res.IsError || strings.Contains(res.Content, "secret\n") {
			t.Errorf("read %s outside the folder: %+v", p, res)
		}
	}
	if res := read("main.go"); res.IsError {
		t.Errorf("the working directory's file: %+v", res)
	}
}
