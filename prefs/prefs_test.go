package prefs

import (
	"os"
	"path/filepath"
	"testing"
)

func TestAChoiceIsRememberedAcrossOpens(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent", "prefs.json")
	if p, err := Open(path).Load(); err != nil || p.Theme != "" {
		t.Fatalf("a missing file: %+v, %v", p, err)
	}
	on := true
	if err := Open(path).Update(func(p *Prefs) { p.Theme = "dracula"; p.Vim = &on }); err != nil {
		t.Fatal(err)
	}
	if err := Open(path).Update(func(p *Prefs) {
		p.Backgrounds = map[string]string{"WezTerm": "light"}
	}); err != nil {
		t.Fatal(err)
	}
	p, err := Open(path).Load()
	if err != nil || p.Theme != "dracula" || p.Vim == nil || !*p.Vim || p.Backgrounds["WezTerm"] != "light" {
		t.Fatalf("after two updates: %+v, %v", p, err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
}

func TestABrokenFileIsAnErrorAndIsReplacedByTheNextChoice(t *testing.T) {
	path := filepath.Join(t.TempDir(), "prefs.json")
	os.WriteFile(path, []byte("{not json"), 0o600)
	f := Open(path)
	if _, err := f.Load(); err == nil {
		t.Fatal("a broken file loaded without an error")
	}
	if err := f.Update(func(p *Prefs) { p.Theme = "light" }); err != nil {
		t.Fatal(err)
	}
	if p, err := f.Load(); err != nil || p.Theme != "light" {
		t.Fatalf("%+v, %v", p, err)
	}
}

func TestDefaultPath(t *testing.T) {
	env := map[string]string{"HOME": "/h"}
	get := func(k string) string { return env[k] }
	if got := DefaultPath(get); got != "/h/.local/share/agent/prefs.json" {
		t.Error(got)
	}
	env["XDG_DATA_HOME"] = "/x"
	if got := DefaultPath(get); got != "/x/agent/prefs.json" {
		t.Error(got)
	}
}
