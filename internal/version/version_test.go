package version

import (
	"bytes"
	"os"
	"runtime/debug"
	"strings"
	"testing"
)

func TestAnswerOnlyAPlainVersionThatIsKnown(t *testing.T) {
	known := func() (string, bool) { return "1.2.3", true }
	unknown := func() (string, bool) { return "", false }
	tests := []struct {
		args string
		v    func() (string, bool)
		want string // "" when the command line is left to cobra
	}{
		{"--version", known, "agent 1.2.3\n"},
		{"--version", unknown, ""},
		{"--model m --version", known, ""},
		{"-p --version", known, ""},
		{"", known, ""},
		{"version", known, ""},
		{"__agent-sandbox --version", known, ""},
	}
	for _, tt := range tests {
		var out strings.Builder
		got := answer(strings.Fields(tt.args), tt.v, &out)
		if got != (tt.want != "") || out.String() != tt.want {
			t.Errorf("answer(%q) = %v, wrote %q; want %q", tt.args, got, out.String(), tt.want)
		}
	}
}

// TestExecutableVersionMatchesRuntimeDebug: the version read from the
// executable's own build information is the one runtime/debug reports, so
// the early answer and cobra's never differ.
func TestExecutableVersionMatchesRuntimeDebug(t *testing.T) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		t.Fatal("no build information in the test binary")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, ok := exeModuleVersion(f)
	if !ok || got != bi.Main.Version {
		t.Errorf("exeModuleVersion = %q, %v; runtime/debug says %q", got, ok, bi.Main.Version)
	}
}

// TestMalformedExecutablesAreLeftToCobra: a file that is not an ELF Go
// executable, or whose build information is cut anywhere, gives no version
// and no panic.
func TestMalformedExecutablesAreLeftToCobra(t *testing.T) {
	for _, data := range [][]byte{nil, []byte("#!/bin/sh\n"), []byte("\x7fELF\x02\x01"), bytes.Repeat([]byte{0xff}, 200)} {
		if v, ok := exeModuleVersion(bytes.NewReader(data)); ok {
			t.Errorf("exeModuleVersion(%q) = %q, true", data, v)
		}
	}
	mod := strings.Repeat("s", 16) + "path\tx\nmod\tx\tv1.2.3\th1:abc\n" + strings.Repeat("e", 16)
	section := append([]byte(buildInfoMagic+"\x08\x02"), make([]byte, 16)...)
	section = append(append(section, 4), "go1x"...)
	section = append(append(section, byte(len(mod))), mod...)
	if v, ok := buildInfoVersion(section); !ok || v != "v1.2.3" {
		t.Fatalf("buildInfoVersion of a whole section = %q, %v", v, ok)
	}
	for n := range len(section) {
		if v, ok := buildInfoVersion(section[:n]); ok {
			t.Errorf("buildInfoVersion of the first %d bytes = %q, true", n, v)
		}
	}
}
