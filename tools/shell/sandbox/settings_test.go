package sandbox

import (
	"slices"
	"strings"
	"testing"
)

// The [sandbox] table resolves with the flags' say first, paths under ~/
// expanded, the credentials' defaults adjusted by deny_read and
// allow_read, and the bounds' defaults; what cannot work names the config
// file (a bad --sandbox names only itself).
func TestResolveSettings(t *testing.T) {
	home := "/home/ada"
	off := false
	s, err := Resolve(File{Mode: "read-only", Network: true, WritableRoots: []string{"~/.cache/go-build"},
		DenyRead: []string{"~/.config/corp"}, AllowRead: []string{"~/.docker"}, EnvPassthrough: []string{"GITHUB_TOKEN"}, EnvKeep: []string{"CI_*"}},
		"", &off, home, "config c.toml")
	if err != nil {
		t.Fatal(err)
	}
	if s.Mode != ReadOnly || s.Network || !slices.Equal(s.WritableRoots, []string{"/home/ada/.cache/go-build"}) {
		t.Errorf("mode %s, network %v, roots %v", s.Mode, s.Network, s.WritableRoots)
	}
	if !slices.Contains(s.Credentials, "/home/ada/.config/corp") || slices.Contains(s.Credentials, "/home/ada/.docker") || !slices.Contains(s.Credentials, "/home/ada/.ssh") {
		t.Errorf("credentials %v", s.Credentials)
	}
	if !slices.Equal(s.EnvKeep, []string{"CI_*", "GITHUB_TOKEN"}) || s.MaxProcesses != DefaultMaxProcesses || s.TmpSize != DefaultTmpSizeMB<<20 {
		t.Errorf("env keep %v, max processes %d, tmp %d", s.EnvKeep, s.MaxProcesses, s.TmpSize)
	}
	if s, err := Resolve(File{Mode: "read-only"}, "off", nil, home, "config c.toml"); err != nil || s.Mode != Off {
		t.Errorf("--sandbox off over the file's read-only: %s, %v", s.Mode, err)
	}
	if s, _ := Resolve(File{WritableRoots: []string{"/tmp"}}, "", nil, home, "config c.toml"); s.TmpSize != 0 {
		t.Errorf("/tmp writable: the commands' own tmpfs of %d bytes, want none", s.TmpSize)
	}
	for _, tc := range []struct {
		f         File
		flag      string
		want, not string
	}{
		{File{Mode: "sometimes"}, "", "config c.toml: sandbox:", ""},
		{File{}, "sometimes", "sometimes", "config c.toml"},
		{File{WritableRoots: []string{"cache"}}, "", "config c.toml: sandbox: writable root \"cache\" must be absolute", ""},
		{File{EnvRemove: []string{"["}}, "", "env pattern \"[\"", ""},
		{File{MaxProcesses: -1}, "", "max_processes and tmp_size_mb must be positive", ""},
	} {
		_, err := Resolve(tc.f, tc.flag, nil, home, "config c.toml")
		if err == nil || !strings.Contains(err.Error(), tc.want) || (tc.not != "" && strings.Contains(err.Error(), tc.not)) {
			t.Errorf("%+v --sandbox %q: %v, want one saying %q", tc.f, tc.flag, err, tc.want)
		}
	}
}
