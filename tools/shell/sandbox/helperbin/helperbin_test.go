package helperbin

import (
	"bytes"
	"debug/buildinfo"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
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

// TestPathStartsTheHelper starts the embedded helper from its memfd as
// the sandbox does, supervising a program, which finds its supervisor named
// agent-sandbox (not by the memfd's number), and checks that the memfd
// cannot be written.
func TestPathStartsTheHelper(t *testing.T) {
	p, err := Path()
	if err != nil {
		t.Fatal(err)
	}
	if p == "" {
		t.Skipf("no helper is embedded for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	out, err := exec.Command(p, "__agent-sandbox", "--ruleset-fd=-1", "--grace-ms=0", "--supervise-only", "--", "/bin/sh", "-c", "cat /proc/$PPID/comm").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "agent-sandbox" {
		t.Fatalf("the helper from %s: %v %q", p, err, out)
	}
	if again, _ := Path(); again != p {
		t.Errorf("a second call made another memfd: %s, then %s", p, again)
	}
	if f, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
		_, werr := f.Write([]byte("x"))
		f.Close()
		if werr == nil {
			t.Fatal("the helper's memfd took a write: it is not sealed")
		}
	}
	out, err = exec.Command(p).CombinedOutput()
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
