package cmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// agent doctor names the tool caches a sandboxed command cannot write (Go's
// build and module caches, with go on PATH) and the writable_roots line
// that lets it; once the config lists them it says they are writable.
func TestDoctorNamesToolCachesTheSandboxCannotWrite(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	home := t.TempDir()
	env := map[string]string{"HOME": home, "GOCACHE": filepath.Join(home, "gocache"), "GOMODCACHE": filepath.Join(home, "gomod")}
	for _, d := range []string{env["GOCACHE"], env["GOMODCACHE"]} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	out, _ := doctor(t, writeConfig(t, ""), env, "--base-url", "http://127.0.0.1:1/v1", "--model", "m")
	for _, want := range []string{"not writable by sandboxed commands: ~/gocache (go build cache), ~/gomod (go module cache)",
		`writable_roots = ["~/gocache", "~/gomod"]`, "README: Sandbox and permissions"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor lacks %q:\n%s", want, out)
		}
	}
	cfg := writeConfig(t, "[sandbox]\nwritable_roots = [\""+env["GOCACHE"]+"\", \""+env["GOMODCACHE"]+"\"]\n")
	out, _ = doctor(t, cfg, env, "--base-url", "http://127.0.0.1:1/v1", "--model", "m")
	if strings.Contains(out, "not writable by sandboxed commands") || !strings.Contains(out, "caches of the tools found are writable") {
		t.Errorf("with writable_roots:\n%s", out)
	}
}

// The writable_roots lines doctor gives are TOML a person can paste: a
// [sandbox] table whose writable_roots keeps the roots the config lists
// already and adds the caches.
func TestDoctorsWritableRootsLinesAreTOML(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	home := t.TempDir()
	env := map[string]string{"HOME": home, "GOCACHE": filepath.Join(home, "gocache"), "GOMODCACHE": filepath.Join(home, "gomod")}
	for _, d := range []string{env["GOCACHE"], env["GOMODCACHE"], filepath.Join(home, "data")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	out, _ := doctor(t, writeConfig(t, "[sandbox]\nwritable_roots = [\""+filepath.Join(home, "data")+"\"]\n"), env, "--base-url", "http://127.0.0.1:1/v1", "--model", "m")
	var pasted []string
	for _, l := range strings.Split(out, "\n") {
		if t := strings.TrimSpace(l); t == "[sandbox]" || strings.HasPrefix(t, "writable_roots =") {
			pasted = append(pasted, t)
		}
	}
	var cfg struct {
		Sandbox struct {
			WritableRoots []string `toml:"writable_roots"`
		} `toml:"sandbox"`
	}
	if _, err := toml.Decode(strings.Join(pasted, "\n"), &cfg); err != nil || len(pasted) != 2 {
		t.Fatalf("the lines to paste %q: %v\n%s", pasted, err, out)
	}
	if got := strings.Join(cfg.Sandbox.WritableRoots, " "); got != "~/data ~/gocache ~/gomod" {
		t.Errorf("writable_roots = %q", got)
	}
}
