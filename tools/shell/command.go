package shell

import (
	"errors"
	"fmt"
	"os/exec"
	"time"
)

// Spec is what the tool asks a Builder to run.
type Spec struct {
	// Command is the model's command text, for `bash -c`.
	Command string
	// Dir is the working directory.
	Dir string
	// Env is the child's whole environment (KEY=VALUE), already stripped of
	// secrets and with the non-interactive settings applied.
	Env []string
	// KillGrace is the time the tool gives the command between SIGTERM and
	// SIGKILL when it stops it; a wrapper that supervises the command must
	// finish its own clean-up within it.
	KillGrace time.Duration
	// Background is true for a command that outlives its call
	// (run_in_background): a sandbox keeps the repository's git directory
	// read-only for it, since no guard looks at .git between its calls.
	Background bool
	// BuildAgain says the caller starts the command with the Builder's own
	// start (Config.Start) and builds it again (the same Spec) when that
	// fails with ErrBuildAgain; a Builder may then build one whose start
	// learns what the next build needs (a sandbox's first command probes
	// its namespaces as it starts). The tool sets it for a foreground
	// command when its Config has a Start.
	BuildAgain bool
}

// ErrBuildAgain is what a start of a command built for a Spec with
// BuildAgain may fail with: nothing ran, and the command must be built
// again and started (once: the second build knows what the first did not).
var ErrBuildAgain = errors.New("the command must be built again")

// Builder turns a Spec into the process to start. It sets the program,
// arguments, Dir and Env; it may set SysProcAttr (a sandbox may need
// namespaces). The tool then sets Stdin, Stdout, Stderr and WaitDelay, and
// adds its process-group setting to SysProcAttr, so a Builder must leave
// those alone. An error is reported to the model as an error result, so it
// should say what is missing ("bash is not available: ...").
//
// BashCommand is the default; an OS sandbox is slotted in by a Builder that
// wraps it.
type Builder func(Spec) (*exec.Cmd, error)

// BashCommand is the default Builder: `bash -c COMMAND` with bash found on
// PATH.
func BashCommand(s Spec) (*exec.Cmd, error) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		return nil, fmt.Errorf("bash is not available on this machine: %v", err)
	}
	cmd := exec.Command(bash, "-c", s.Command)
	cmd.Dir = s.Dir
	cmd.Env = s.Env
	return cmd, nil
}
