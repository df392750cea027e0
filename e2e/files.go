package e2e

import (
	"bytes"
	"encoding/json"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

// WriteFile writes content to dir/name.
func WriteFile(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// ExtProject is a small working directory with main.go and the files given
// (slash path -> content).
func ExtProject(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files["main.go"] = "package main\n\nfunc main() {}\n"
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// ClaudeHooks is a .claude/settings.json with one command hook for event.
func ClaudeHooks(event, matcher, command string, timeout float64) string {
	h := map[string]any{"type": "command", "command": command}
	if timeout > 0 {
		h["timeout"] = timeout
	}
	group := map[string]any{"hooks": []any{h}}
	if matcher != "" {
		group["matcher"] = matcher
	}
	b, _ := json.Marshal(map[string]any{"hooks": map[string]any{event: []any{group}}})
	return string(b)
}

// PNGFile writes a grey PNG image of w x h pixels to dir/name and returns
// its bytes.
func PNGFile(t *testing.T, dir, name string, w, h int) []byte {
	t.Helper()
	var buf bytes.Buffer
	png.Encode(&buf, image.NewGray(image.Rect(0, 0, w, h)))
	if err := os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Project is a git repository (a .git directory is enough for the agent to
// find its root) and a session database outside it.
func Project(t *testing.T) (dir, db string) {
	t.Helper()
	dir = t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, filepath.Join(t.TempDir(), "data", "agent.db")
}
