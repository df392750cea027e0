package lsp

import "testing"

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
