package cmd

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// agent doctor's "language servers" section names each server a session
// here would have, whether its command is on PATH and where, and where it
// is configured: the config file's, the repository's .lsp.json (which
// needs trust), the common ones found on PATH; then the common ones that
// are not there, and those the config disables. It starts none.
func TestDoctorListsLanguageServers(t *testing.T) {
	bin := t.TempDir()
	started := filepath.Join(t.TempDir(), "started")
	gopls := filepath.Join(bin, "gopls")
	if err := os.WriteFile(gopls, []byte("#!/bin/sh\ntouch "+started+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin) // only the fake gopls is a known server's command

	repo := t.TempDir()
	lspJSON := `{"tsserver": {"command": "node", "args": ["server.js", "--stdio"], "extensionToLanguage": {".ts": "typescript"}}}`
	if err := os.WriteFile(filepath.Join(repo, ".lsp.json"), []byte(lspJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	config := writeConfig(t, "[lsp.zls]\ncommand = \"zls\"\nextensions = [\".zig\"]\n\n[lsp.clangd]\ndisabled = true\n")
	url := modelsServer(t, "sk-doctor", http.StatusUnauthorized)
	out, _ := doctor(t, config, map[string]string{"OPENAI_API_KEY": "sk-doctor"}, "--base-url", url, "--model", "m1", "-C", repo)

	lines := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(l), " "); ok {
			lines[k] = strings.TrimSpace(v)
		}
	}
	for name, want := range map[string]string{
		"language":                   "servers   3 configured or found",
		"zls":                        "zls: not found on PATH (from config)",
		"tsserver":                   "node: not found on PATH (from " + filepath.Join(repo, ".lsp.json") + "); needs trust",
		"gopls":                      "gopls: " + gopls + " (from PATH)",
		"typescript-language-server": "typescript-language-server: not found on PATH",
		"pyright":                    "pyright-langserver: not found on PATH",
		"clangd":                     "disabled in the config file",
	} {
		if !strings.HasPrefix(lines[name], want) {
			t.Errorf("%s: %q, want it to start with %q\n%s", name, lines[name], want, out)
		}
	}
	if _, err := os.Stat(started); err == nil {
		t.Error("agent doctor started gopls")
	}
}
