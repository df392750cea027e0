package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/agent-dev/agent/internal/gobuild"
)

// builds are the binaries this test process built: links to the builds
// that the e2e packages running at once share (gobuild.Shared), in a
// directory of this process that Main removes.
var builds struct {
	mu   sync.Mutex
	dir  string
	done map[string]build // by package
}

type build struct {
	path string
	err  error
}

// Agent returns the agent binary the tests run, building it on the first
// call: the binary AGENT_E2E_BINARY names, when set (to measure another
// build, as bench/economy.sh does), else the module's main package built as
// buildMode says. A test that skips before it asks for the agent builds
// nothing; one that bounds a run by a clock asks before it starts the clock,
// as the first call may wait for a build.
func Agent(t *testing.T) string {
	t.Helper()
	if b := os.Getenv("AGENT_E2E_BINARY"); b != "" {
		return b
	}
	return built(t, ".", "agent")
}

// Adapter returns the MCP conformance adapter
// (internal/conformance/adapter), which runs the agent for the conformance
// suite and plays the browser in the OAuth tests, built as the agent is.
func Adapter(t *testing.T) string {
	t.Helper()
	return built(t, "./internal/conformance/adapter", "adapter")
}

// buildMode is how the agent is built. Under -race, as a release is built
// (CGO_ENABLED=0, no race detector): an agent with the race detector took
// three times as long in every run (modernc.org/sqlite's pure-Go SQLite
// above all), which put e2e past go test's 10-minute limit on a busy
// 2-core machine, while the packages' own tests keep the race detector; on
// CI, whose cross-compile step builds linux/amd64 with CGO_ENABLED=0 first,
// this is only a link. AGENT_E2E_RACE=1 builds the agent with the race
// detector. Without -race, as go test built the packages the agent is
// made of: only a link.
func buildMode() gobuild.Mode {
	switch {
	case raceDetector && os.Getenv("AGENT_E2E_RACE") == "1":
		return gobuild.Race
	case raceDetector:
		return gobuild.Release
	}
	return gobuild.Default
}

// built returns the binary of pkg (relative to the module's root) built as
// buildMode says, building it on the first call. Waiting for another
// process's build and building end a tenth of the test's remaining time
// before its -timeout, so that a build too slow for the limit fails the
// test with its reason.
func built(t *testing.T, pkg, name string) string {
	t.Helper()
	builds.mu.Lock()
	defer builds.mu.Unlock()
	b, ok := builds.done[pkg]
	if !ok {
		b = buildNow(t, pkg, name)
		if builds.done == nil {
			builds.done = map[string]build{}
		}
		builds.done[pkg] = b
	}
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

func buildNow(t *testing.T, pkg, name string) build {
	ctx := context.Background()
	if deadline, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline.Add(-time.Until(deadline)/10))
		defer cancel()
	}
	if builds.dir == "" {
		dir, err := os.MkdirTemp("", "agent-e2e-")
		if err != nil {
			return build{err: err}
		}
		builds.dir = dir
	}
	start := time.Now()
	path, err := gobuild.Shared(ctx, Root(t), pkg, buildMode(), builds.dir, name)
	if err != nil {
		return build{err: fmt.Errorf("building %s (%v): %w", name, buildMode(), err)}
	}
	t.Logf("the %s (%v build) was ready in %v", name, buildMode(), time.Since(start).Round(time.Millisecond))
	return build{path: path}
}

// Main runs a package's tests (call it from TestMain) and then removes the
// binaries this process linked.
func Main(m *testing.M) {
	code := m.Run()
	builds.mu.Lock()
	if builds.dir != "" {
		os.RemoveAll(builds.dir)
	}
	builds.mu.Unlock()
	os.Exit(code)
}

// root is the module's root directory: the nearest directory above the
// working directory (a test's package directory) with a go.mod.
var root = sync.OnceValues(func() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
})

// Root returns the module's root directory, the repository's checkout.
func Root(t *testing.T) string {
	t.Helper()
	dir, err := root()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}
