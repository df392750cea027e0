package shell

import (
	"fmt"
	"io"
	"os/exec"
	"sync"
	"time"

	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/background"
)

// startBackground hands cmd, built but not started, to the session's
// background processes and returns at once with its id. after is the
// sandbox's guard, told of the end.
func (t *Tool) startBackground(cmd *exec.Cmd, command, session string, after func(tools.Result) string) tools.Result {
	cmd.WaitDelay = pipeDrain
	id, err := t.cfg.Background.Start(cmd, command, session, t.cfg.Start, guardOnExit(after))
	if err != nil {
		return tools.Errorf("bash: run_in_background: %v", err)
	}
	return tools.Result{
		Content: fmt.Sprintf("The command runs in the background as %s. Read its new output with bash_output (bash_id %q); stop it with kill_shell. You will be told when it exits.", id, id),
		Meta:    map[string]any{tools.MetaBackgroundID: id},
	}
}

// adopt hands a foreground command the person sent to the background over
// to the session's background processes, with its output so far, and
// returns the call's result: the output so far and the new id.
func (t *Tool) adopt(cmd *exec.Cmd, command, session string, out *capture, sw *switchWriter, done <-chan error, after func(tools.Result) string, elapsed time.Duration) tools.Result {
	var sofar string
	id, err := t.cfg.Background.Adopt(background.Adopted{
		Cmd: cmd, Command: command, Session: session, Wait: done, After: guardOnExit(after), Started: time.Now().Add(-elapsed),
		Redirect: func(w io.Writer) int64 {
			sw.mu.Lock()
			defer sw.mu.Unlock()
			sofar, _ = out.String()
			n, _ := io.WriteString(w, sofar)
			sw.w = w
			return int64(n) // the result below shows them
		},
	})
	if err != nil { // the session is closing: the command ends with the call
		terminateGroup(cmd)
		killGroup(cmd)
		<-done
		return tools.Errorf("bash: the command could not be sent to the background (%v) and was stopped", err)
	}
	text := fmt.Sprintf("The user sent the command to the background after %d ms; it runs on as %s. Read its new output with bash_output (bash_id %q); stop it with kill_shell. You will be told when it exits.", elapsed.Milliseconds(), id, id)
	if sofar != "" {
		text += "\nIts output so far:\n" + sofar
	}
	return tools.Result{Content: text, Meta: map[string]any{tools.MetaBackgroundID: id, "duration_ms": elapsed.Milliseconds()}}
}

// guardOnExit calls the sandbox's guard (nil: none) with a background
// process's exit code once it has ended.
func guardOnExit(after func(tools.Result) string) func(int) string {
	if after == nil {
		return nil
	}
	return func(code int) string { return after(tools.Result{Meta: map[string]any{tools.MetaExitCode: code}}) }
}

// switchWriter passes writes on to w, which a foreground command sent to
// the background switches from the call's capture to its output file.
type switchWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *switchWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
