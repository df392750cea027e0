package lsp

import (
	"strings"
	"testing"
)

func TestATrustedServerIsAskedAgainWhenItsOptionsChange(t *testing.T) {
	// A repository's .lsp.json, trusted once: its initializationOptions
	// and settings can name programs the server runs (typescript-
	// language-server's tsserver.path, gopls's buildFlags -toolexec), so a
	// change to them is a new definition to trust.
	base := `{"ts": {"command": "typescript-language-server", "args": ["--stdio"], "extensionToLanguage": {".ts": "typescript"}`
	parse := func(extra string) string {
		t.Helper()
		list, _, err := ParseClaude([]byte(base+extra+"}}"), ".lsp.json", nil)
		if err != nil || len(list) != 1 {
			t.Fatalf("%v %v", list, err)
		}
		return list[0].Definition()
	}
	trusted := parse("")
	for _, extra := range []string{
		`, "initializationOptions": {"tsserver": {"path": "./evil.js"}}`,
		`, "settings": {"gopls": {"buildFlags": ["-toolexec=./evil"]}}`,
		`, "extensionToLanguage": {".ts": "javascript"}`,
	} {
		if parse(extra) == trusted {
			t.Errorf("the trusted definition survives %s", extra)
		}
	}
	if parse("") != trusted {
		t.Error("the same definition is not the same text")
	}
}

func TestALspJSONExtensionThatCanMatchNoFileIsNamed(t *testing.T) {
	// Claude Code's extensionToLanguage keys are extensions with their
	// dot; a key without it, empty, or with a slash serves no file (or
	// every file without an extension), and says so.
	data := `{"zls": {"command": "zls", "extensionToLanguage": {"zig": "zig", "": "zig", "a/b": "zig", ".zon": "zig"}}}`
	list, warnings, err := ParseClaude([]byte(data), ".lsp.json", nil)
	if err != nil || len(list) != 1 {
		t.Fatalf("%v %v", list, err)
	}
	if got := strings.Join(list[0].Extensions, " "); got != ".zon" {
		t.Errorf("extensions %q, want only .zon", got)
	}
	joined := strings.Join(warnings, "\n")
	for _, want := range []string{`"zig"`, `""`, `"a/b"`} {
		if !strings.Contains(joined, want) {
			t.Errorf("no warning names %s:\n%s", want, joined)
		}
	}
	if list[0].serves("Makefile") {
		t.Error("the server claims files without an extension")
	}
}

func TestAConfiguredExtensionWrittenAsAPatternIsAnError(t *testing.T) {
	var f File
	err := f.UnmarshalTOML(map[string]any{"zls": map[string]any{"command": "zls", "extensions": []any{"*.zig"}}})
	if err == nil {
		_, err = Resolve(f, "config.toml")
	}
	if err == nil || !strings.Contains(err.Error(), `"*.zig"`) {
		t.Errorf("extensions = [\"*.zig\"] (a pattern, matching no file) gives %v", err)
	}
}
