package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// buildAgent builds the agent as a release is built (no race detector, CGO_ENABLED=0) into dir and returns its path.
// Under -race the agent that e2e runs is this build rather than the test binary: an agent with the race detector
// took three times as long in every run (modernc.org/sqlite's pure-Go SQLite above all), which put the package past
// go test's 10-minute limit on a busy 2-core machine, while the packages' own tests keep the race detector. On CI,
// whose cross-compile step builds linux/amd64 with CGO_ENABLED=0 first, this is only a link. AGENT_E2E_RACE=1 keeps
// the test binary (the agent with the race detector).
func buildAgent(dir string) (string, error) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		goCmd = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	out := filepath.Join(dir, "agent")
	src, err := filepath.Abs("..")
	if err != nil {
		return "", err
	}
	cmd := exec.Command(goCmd, "build", "-o", out, ".")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, msg)
	}
	return out, nil
}
