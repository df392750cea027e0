package sandbox

import (
	"slices"
	"strings"
	"testing"
)

func TestSeatbeltProfile(t *testing.T) {
	p := Policy{Mode: WorkspaceWrite, Dir: "/Users/me/proj", TempDirs: []string{"/private/tmp"},
		WritableRoots: []string{"/Users/me/.cache/go-build"}, Protected: []string{"/Users/me/proj/.agent", "/Users/me/.config/agent"}}
	sb := SeatbeltFor(p)
	wantParams := []string{
		"WRITABLE_ROOT_0=/Users/me/proj", "WRITABLE_ROOT_1=/private/tmp", "WRITABLE_ROOT_2=/Users/me/.cache/go-build",
		"PROTECTED_0=/Users/me/proj/.git/hooks", "PROTECTED_1=/Users/me/proj/.git/config", "PROTECTED_2=/Users/me/proj/.agent",
	}
	if !slices.Equal(sb.Params, wantParams) {
		t.Errorf("params = %q\nwant %q (a protected path outside every writable root needs no rule)", sb.Params, wantParams)
	}
	prof := sb.Profile
	for _, path := range []string{"/Users", "proj", "tmp"} {
		if strings.Contains(prof, path) {
			t.Errorf("a path (%s) is in the profile's text; paths must travel as parameters:\n%s", path, prof)
		}
	}
	// Order matters in SBPL: the last matching rule wins, so the denial of
	// writes comes first, the writable roots next, the protected paths last.
	order := []string{"(deny file-write*)", `(subpath (param "WRITABLE_ROOT_0"))`, `(deny file-write*` + "\n" + `  (subpath (param "PROTECTED_0"))`, "(deny network*)"}
	last := -1
	for _, s := range order {
		i := strings.Index(prof, s)
		if i < 0 || i < last {
			t.Fatalf("%q missing or out of order in:\n%s", s, prof)
		}
		last = i
	}
	if !strings.Contains(prof, `(literal "/dev/null")`) {
		t.Errorf("/dev/null must stay writable:\n%s", prof)
	}

	ro := SeatbeltFor(Policy{Mode: ReadOnly, Dir: "/p", Network: true})
	if len(ro.Params) != 0 || strings.Contains(ro.Profile, "WRITABLE_ROOT") || strings.Contains(ro.Profile, "PROTECTED") {
		t.Errorf("read-only mode writes nowhere but devices: %q\n%s", ro.Params, ro.Profile)
	}
	if strings.Contains(ro.Profile, "network") {
		t.Errorf("with the network on there is no network rule:\n%s", ro.Profile)
	}
}

func TestParseModeAndStatusText(t *testing.T) {
	for in, want := range map[string]Mode{"": WorkspaceWrite, "read-only": ReadOnly, "off": Off, "workspace-write": WorkspaceWrite} {
		if got, err := ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseMode("danger-full-access"); err == nil || !strings.Contains(err.Error(), "workspace-write, read-only or off") {
		t.Errorf("an unknown mode should name the valid ones: %v", err)
	}
	st := Status{Mode: WorkspaceWrite, Enforced: true}
	if c := st.Confinement(); !strings.Contains(c, "workspace-write, network off") || !strings.Contains(c, "no network access") {
		t.Errorf("Confinement = %q", c)
	}
	if c := (Status{Mode: WorkspaceWrite, Reason: "x"}).Confinement(); c != "" {
		t.Errorf("an unenforced sandbox must not be described to the model as confining: %q", c)
	}
}
