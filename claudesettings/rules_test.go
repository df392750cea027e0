package claudesettings_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/claudesettings"
)

// Claude Code's rule syntax, mapped onto agent's rules: what a deny rule
// cannot say exactly is widened, what an allow rule cannot say is
// dropped.
func TestTranslate(t *testing.T) {
	for _, tc := range []struct {
		rule  string
		deny  bool
		ok    bool
		kind  claudesettings.Kind
		value string
		lit   string
	}{
		{rule: "Bash", ok: true, kind: claudesettings.KindAllBash},
		{rule: "Bash(*)", deny: true, ok: true, kind: claudesettings.KindAllBash},
		{rule: "Bash(npm run test:*)", ok: true, kind: claudesettings.KindCommand, value: "npm run test"},
		{rule: "Bash(git diff)", ok: true, kind: claudesettings.KindCommand, value: "git diff"},
		{rule: "Bash(npm run *)", ok: true, kind: claudesettings.KindCommand, value: "npm run"},
		{rule: "Bash(git push * main)", deny: true, ok: true, kind: claudesettings.KindCommand, value: "git push"},
		{rule: "Bash(git push * main)", ok: false},
		{rule: "Bash(* --version)", deny: true, ok: false},
		{rule: "Edit", ok: true, kind: claudesettings.KindTool, value: "edit_file"},
		{rule: "WebFetch(domain:example.com)", ok: true, kind: claudesettings.KindDomain, value: "web_fetch(domain:example.com)"},
		{rule: "mcp__github", ok: true, kind: claudesettings.KindTool, value: "mcp__github__*"},
		{rule: "mcp__github__create_issue", deny: true, ok: true, kind: claudesettings.KindTool, value: "mcp__github__create_issue"},
		{rule: "Read(./.env)", deny: true, ok: true, kind: claudesettings.KindReadPath, value: "/w/.env", lit: "/w/.env"},
		{rule: "Read(./secrets/**)", deny: true, ok: true, kind: claudesettings.KindReadPath, value: "/w/secrets/**", lit: "/w/secrets"},
		{rule: "Read(*.pem)", deny: true, ok: true, kind: claudesettings.KindReadPath, value: "/w/**/*.pem"},
		{rule: "Edit(/docs/**)", deny: true, ok: true, kind: claudesettings.KindEditPath, value: "/repo/docs/**", lit: "/repo/docs"},
		{rule: "Read(~/.aws/**)", deny: true, ok: true, kind: claudesettings.KindReadPath, value: "/home/me/.aws/**", lit: "/home/me/.aws"},
		{rule: "Read(//etc/passwd)", deny: true, ok: true, kind: claudesettings.KindReadPath, value: "/etc/passwd", lit: "/etc/passwd"},
		{rule: "Read(./src/**)", ok: false},
		{rule: "NotebookRead", ok: false},
		{rule: "Bash(ls", ok: false},
	} {
		r, note, ok := claudesettings.Translate(tc.rule, "/w", "/repo", "/home/me", tc.deny)
		if ok != tc.ok {
			t.Errorf("Translate(%q, deny %v): ok %v (%s), want %v", tc.rule, tc.deny, ok, note, tc.ok)
			continue
		}
		if !ok {
			if note == "" {
				t.Errorf("Translate(%q): refused without saying why", tc.rule)
			}
			continue
		}
		if r.Kind != tc.kind || r.Value != tc.value || r.Literal != filepath.FromSlash(tc.lit) {
			t.Errorf("Translate(%q) = %+v, want kind %v value %q literal %q", tc.rule, r, tc.kind, tc.value, tc.lit)
		}
	}
}

// Every key of a settings file that agent does not honour is named.
func TestReadNamesWhatItDoesNotHonour(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(path, []byte(`{"apiKeyHelper":"/bin/get-key","permissions":{"defaultMode":"acceptEdits"},"statusLine":{"type":"text"},"frobnicate":1,"env":{"A":"1"},"extraKnownMarketplaces":{"team":{"source":{"source":"github","repo":"o/r"}}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := claudesettings.Read(path, true)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(f.Unsupported, "\n")
	for _, want := range []string{"apiKeyHelper: not honoured", "frobnicate: not a setting agent knows", "permissions.defaultMode", `statusLine: type "text"`, "extraKnownMarketplaces: not honoured"} {
		if !strings.Contains(got, want) {
			t.Errorf("unsupported lacks %q:\n%s", want, got)
		}
	}
	if f.Env["A"] != "1" || f.StatusLine != nil {
		t.Errorf("read %+v", f)
	}
	if _, err := claudesettings.Read(filepath.Join(t.TempDir(), "missing.json"), false); err != nil {
		t.Errorf("a missing file: %v", err)
	}
	if err := os.WriteFile(path, []byte(`{"permissions": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := claudesettings.Read(path, false); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("a broken file: %v", err)
	}
}
