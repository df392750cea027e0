package helperbin

import (
	"bytes"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestEmbeddedHelpersAreBuiltFromThisSource rebuilds the helpers as go
// generate does and compares them with those in this directory, which the
// agent embeds: a change to the helper's source without go generate would
// otherwise ship the old helper. The build is reproducible for one
// compiler release, which each binary names in its .comment section;
// where a compiler is another release, the comparison is skipped with a
// message, as it is where one is missing, except under CI (.ci/run
// installs both).
func TestEmbeddedHelpersAreBuiltFromThisSource(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the helper for two architectures")
	}
	for _, arch := range []string{"amd64", "arm64"} {
		name := "agent-sandbox_linux_" + arch
		f, err := elf.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		comment := f.Section(".comment")
		var built []byte
		if comment != nil {
			built, _ = comment.Data()
		}
		f.Close()
		cc := compiler(t, arch)
		version, err := exec.Command(cc, "--version").Output()
		if err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("no %s to build the helper for %s with (gcc-aarch64-linux-gnu on Debian): %v", cc, arch, err)
			}
			t.Skipf("no %s to build the helper for %s with: install it (gcc-aarch64-linux-gnu on Debian) to compare", cc, arch)
		}
		// "gcc (Debian 12.2.0-14+deb12u1) 12.2.0" writes
		// "GCC: (Debian 12.2.0-14+deb12u1) 12.2.0".
		first, _, _ := strings.Cut(string(version), "\n")
		_, release, _ := strings.Cut(first, " ")
		if want := "GCC: " + release + "\x00"; !bytes.Contains(built, []byte(want)) {
			t.Skipf("%s was built by %q and %s is %q: run go generate ./tools/shell/sandbox/helperbin with it to compare", name, bytes.Trim(built, "\x00"), cc, release)
		}
	}
	dir := t.TempDir()
	cmd := exec.Command("go", "run", "build.go", "-o", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run build.go: %v\n%s", err, out)
	}
	for _, arch := range []string{"amd64", "arm64"} {
		name := "agent-sandbox_linux_" + arch
		want, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not what the helper's source builds to: run go generate ./tools/shell/sandbox/helperbin", name)
		}
	}
}

// compiler is build.go's C compiler for arch (its -cc).
func compiler(t *testing.T, arch string) string {
	out, err := exec.Command("go", "run", "build.go", "-cc", arch).Output()
	if err != nil {
		t.Fatalf("go run build.go -cc %s: %v", arch, err)
	}
	return strings.TrimSpace(string(out))
}

// TestExecStartsTheHelper starts the embedded helper from its memfd as
// the sandbox does, after two other descriptors, supervising a program
// that finds its supervisor named agent-sandbox (not by the descriptor's
// number) and no descriptor of the helper's open; the memfd refuses writes.
func TestExecStartsTheHelper(t *testing.T) {
	f, _ := helpers(t)
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	others := []*os.File{null, null}
	path, extra := Exec(f, others)
	if path != "/proc/self/fd/5" || len(extra) != 3 || extra[2] != f || len(others) != 2 {
		t.Fatalf("Exec: %s %v (given %v)", path, extra, others)
	}
	cmd := exec.Command(path, "__agent-sandbox", "--ruleset-fd=-1", "--grace-ms=0", "--supervise-only", "--",
		"/bin/sh", "-c", "cat /proc/$PPID/comm; ls /proc/self/fd")
	cmd.ExtraFiles = extra
	out, err := cmd.CombinedOutput()
	lines := strings.Fields(string(out))
	if err != nil || len(lines) == 0 || lines[0] != "agent-sandbox" {
		t.Fatalf("the helper from %s: %v %q", path, err, out)
	}
	for _, fd := range lines[1:] {
		if n, _ := strconv.Atoi(fd); n > 3 { // ls's own directory is 3
			t.Errorf("the program inherited descriptor %s: %q", fd, out)
		}
	}
	if again, _ := File(); again != f {
		t.Errorf("a second call made another memfd")
	}
	if _, err := f.WriteAt([]byte("x"), 0); err == nil {
		t.Fatal("the helper's memfd took a write: it is not sealed")
	}
	cmd = exec.Command(path)
	cmd.ExtraFiles = extra
	out, err = cmd.CombinedOutput()
	if code := exitCode(err); code != 2 || !strings.Contains(string(out), "the agent starts it") {
		t.Errorf("started without __agent-sandbox: exit %d, %q; want 2 and the usage", code, out)
	}
}

func exitCode(err error) int {
	if e, ok := err.(*exec.ExitError); ok {
		return e.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// helpers returns the embedded helper (the test is skipped where none is
// embedded) and this test's own binary, which is the Go helper when
// started with helper.Arg first, as the agent's is.
func helpers(t *testing.T) (embedded *os.File, self string) {
	t.Helper()
	f, err := File()
	if err != nil {
		t.Fatal(err)
	}
	if f == nil {
		t.Skipf("no helper is embedded for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	self, err = os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return f, self
}
