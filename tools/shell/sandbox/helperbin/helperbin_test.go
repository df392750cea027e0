package helperbin

import (
	"bytes"
	"debug/buildinfo"
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
// otherwise ship the old helper. The build is reproducible for one Go
// release; built with another, the comparison is skipped with a message.
func TestEmbeddedHelpersAreBuiltFromThisSource(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the helper twice")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to build the helper with")
	}
	committed := map[string][]byte{}
	for _, arch := range []string{"amd64", "arm64"} {
		name := "agent-sandbox_linux_" + arch
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		info, err := buildinfo.Read(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if info.GoVersion != runtime.Version() {
			t.Skipf("%s was built with %s and this is %s: run go generate ./tools/shell/sandbox/helperbin with this Go to compare", name, info.GoVersion, runtime.Version())
		}
		committed[name] = b
	}
	dir := t.TempDir()
	cmd := exec.Command("go", "run", "build.go", "-o", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run build.go: %v\n%s", err, out)
	}
	for name, want := range committed {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not what the helper's source builds to: run go generate ./tools/shell/sandbox/helperbin", name)
		}
	}
}

// TestExecStartsTheHelper starts the embedded helper from its memfd as
// the sandbox does, after two other descriptors, supervising a program
// that finds its supervisor named agent-sandbox (not by the descriptor's
// number) and no descriptor of the helper's open; the memfd refuses writes.
func TestExecStartsTheHelper(t *testing.T) {
	f, err := File()
	if err != nil {
		t.Fatal(err)
	}
	if f == nil {
		t.Skipf("no helper is embedded for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
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
