package e2e

import (
	"fmt"
	"os"
	"testing"

	agentcmd "github.com/agent-dev/agent/cmd"
)

// TestMain runs the tests, or, when the process was started as the agent
// (asAgent=1), runs the agent's command line exactly as main.go does.
// Without -race the tests start this binary (nothing is compiled twice);
// under -race they start the agent buildAgent builds without the race
// detector (see buildAgent for why), unless AGENT_E2E_RACE=1. The sandbox
// helper (`__agent-sandbox`) answers from its package's init, as in the
// real binary.
func TestMain(m *testing.M) {
	if os.Getenv(asAgent) == "1" {
		os.Exit(agentcmd.Execute())
	}
	if b := os.Getenv("AGENT_E2E_BINARY"); b != "" {
		binary = b
		os.Exit(m.Run())
	}
	if raceDetector && os.Getenv("AGENT_E2E_RACE") != "1" {
		os.Exit(runWithBuild(m))
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "finding the test binary:", err)
		os.Exit(1)
	}
	binary = exe
	os.Exit(m.Run())
}

// runWithBuild runs the tests against the agent buildAgent builds in a
// temporary directory, removed after the tests.
func runWithBuild(m *testing.M) int {
	dir, err := os.MkdirTemp("", "agent-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	if binary, err = buildAgent(dir); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: building the agent:", err)
		return 1
	}
	return m.Run()
}
