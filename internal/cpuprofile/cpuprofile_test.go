package cpuprofile_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/agent-dev/agent/internal/cpuprofile"
)

// A path gets a profile in pprof's format: gzipped protocol buffers that
// name the CPU sample type.
func TestStartWritesAProfileWhenAsked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.pprof")
	stop := cpuprofile.Start(path)
	stop()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	z, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("the profile is not gzipped: %v", err)
	}
	raw, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(raw, []byte("cpu")) || !bytes.Contains(raw, []byte("nanoseconds")) {
		t.Fatalf("the profile names no CPU samples: %q", raw)
	}
}

// The variable is read once and taken out of the environment, so the
// commands the agent starts do not write a profile of their own there.
func TestFromEnvLeavesNoVariableForChildren(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.pprof")
	t.Setenv(cpuprofile.Env, path)
	stop := cpuprofile.FromEnv()
	_, set := os.LookupEnv(cpuprofile.Env)
	stop()
	if set {
		t.Errorf("%s is still in the environment", cpuprofile.Env)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		t.Fatalf("no profile at %s: %v", path, err)
	}
}

// No path profiles nothing, and a path that cannot be created leaves the
// process unprofiled, with nothing to stop.
func TestStartWithoutAPathOrWithABadOneProfilesNothing(t *testing.T) {
	cpuprofile.Start("")()
	bad := filepath.Join(t.TempDir(), "missing", "cpu.pprof")
	cpuprofile.Start(bad)()
	if _, err := os.Stat(bad); err == nil {
		t.Fatalf("a profile was written at %s", bad)
	}
	// A profile can still start afterwards: nothing was left running.
	path := filepath.Join(t.TempDir(), "cpu.pprof")
	cpuprofile.Start(path)()
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		t.Fatalf("the profile after them: %v", err)
	}
}
