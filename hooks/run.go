package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/agent-dev/agent/telemetry/tracecontext"
)

// Input is the JSON object a hook reads on standard input: the fields
// every event has, then those of its event (Claude Code's names; empty
// ones are left out).
type Input struct {
	SessionID string `json:"session_id"`
	// TranscriptPath is a file with the session's messages, one JSON
	// object a line, written just before the hooks run.
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	PermissionMode string `json:"permission_mode,omitempty"`
	// ToolName is Claude Code's name for the tool where it has one
	// (Bash, Edit), AgentToolName the agent's own (bash, edit_file).
	ToolName      string `json:"tool_name,omitempty"`
	AgentToolName string `json:"agent_tool_name,omitempty"`
	// ToolInput is the call's arguments; for a tool with a path argument
	// they also carry file_path, the absolute path, as Claude Code's file
	// tools do.
	ToolInput    json.RawMessage `json:"tool_input,omitempty"`
	ToolResponse any             `json:"tool_response,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	Prompt       string          `json:"prompt,omitempty"`
	// StopHookActive is set for Stop and SubagentStop: true when the turn
	// already went on because of a stop hook.
	StopHookActive *bool `json:"stop_hook_active,omitempty"`
	// Source is SessionStart's: startup, resume, clear or compact.
	Source string `json:"source,omitempty"`
	// Reason is SessionEnd's: exit, clear, logout, other.
	Reason string `json:"reason,omitempty"`
	// Trigger and CustomInstructions are PreCompact's: manual or auto, and
	// what /compact was given.
	Trigger            string  `json:"trigger,omitempty"`
	CustomInstructions *string `json:"custom_instructions,omitempty"`
	// Message is Notification's text, NotificationType its kind
	// (NotifyPermission, NotifyIdle).
	Message          string `json:"message,omitempty"`
	NotificationType string `json:"notification_type,omitempty"`
	// Error and IsInterrupt are PostToolUseFailure's: the failed call's
	// error text, and whether the call was cancelled.
	Error       string `json:"error,omitempty"`
	IsInterrupt *bool  `json:"is_interrupt,omitempty"`
	// AgentID and AgentType are SubagentStart's: the id of the task call
	// that starts the subagent, and the name of its agent definition
	// ("general-purpose" without one).
	AgentID   string `json:"agent_id,omitempty"`
	AgentType string `json:"agent_type,omitempty"`
}

// Output is the JSON object a hook may print on standard output (Claude
// Code's "Advanced: JSON output").
type Output struct {
	// Continue false stops the agent's work after the hooks (StopReason
	// is shown); nil or true goes on.
	Continue       *bool  `json:"continue,omitempty"`
	StopReason     string `json:"stopReason,omitempty"`
	SuppressOutput bool   `json:"suppressOutput,omitempty"`
	SystemMessage  string `json:"systemMessage,omitempty"`
	// Decision is "block" (PostToolUse, UserPromptSubmit, Stop), or
	// PreToolUse's older "approve" | "block".
	Decision string `json:"decision,omitempty"`
	Reason   string `json:"reason,omitempty"`
	Specific struct {
		HookEventName            string          `json:"hookEventName,omitempty"`
		PermissionDecision       string          `json:"permissionDecision,omitempty"`
		PermissionDecisionReason string          `json:"permissionDecisionReason,omitempty"`
		UpdatedInput             json.RawMessage `json:"updatedInput,omitempty"`
		AdditionalContext        string          `json:"additionalContext,omitempty"`
		// Decision is PermissionRequest's answer for the person.
		Decision *PermissionDecision `json:"decision,omitempty"`
	} `json:"hookSpecificOutput"`
}

// PermissionDecision is a PermissionRequest hook's answer (Claude Code's
// hookSpecificOutput.decision): behavior "allow" or "deny", the arguments
// to run an allowed call with instead, the message a denial gives the
// model.
type PermissionDecision struct {
	Behavior     string          `json:"behavior"`
	UpdatedInput json.RawMessage `json:"updatedInput,omitempty"`
	Message      string          `json:"message,omitempty"`
}

// Result is what one hook did.
type Result struct {
	Hook Hook
	// Exit is the exit status; -1 when the hook did not finish (Failure
	// says why).
	Exit   int
	Stdout string
	Stderr string
	// Failure, when not empty, says why the hook gave no answer: it could
	// not start (also exit status 126 or 127, the shell's "cannot
	// execute" and "not found"), was killed by a signal, or ran past its
	// timeout and was killed.
	Failure string
	// Output is Stdout read as a JSON object, nil when it is not one.
	Output *Output
}

// Runner runs the hooks of a run. Its fields are set once, before the
// first Run; it is then safe for concurrent use.
type Runner struct {
	// Hooks are the hooks that may run (a repository's only once
	// trusted).
	Hooks []Hook
	// Dir is the project directory: the hooks' working directory and
	// CLAUDE_PROJECT_DIR (and AGENT_PROJECT_DIR).
	Dir string
	// Env is the hooks' environment (KEY=VALUE), without the variables
	// the run keeps from commands.
	Env []string
	// Transcript, when not nil, writes the session's transcript and
	// returns its path, for Input.TranscriptPath.
	Transcript func(ctx context.Context, session string) string
	// Shell is the program that runs a command with "-c"; "" finds bash,
	// else sh.
	Shell string
	// Judge asks the session's model a prompt hook's question and returns
	// its answer's text; nil leaves prompt hooks unanswered (a Failure).
	Judge func(ctx context.Context, prompt string) (string, error)
	// Confine, when not nil, is asked for each command hook before it
	// starts: it returns the process that runs spec (the shell's command
	// line, the project directory, the hook's whole environment) confined,
	// and the function that starts it (nil: cmd.Start); a nil Confined.Cmd
	// runs h unconfined, as without Confine. An error is the hook's
	// Failure; nothing was run. The runner sets the process group, stdin
	// and output of the command it returns.
	Confine func(h Hook, spec ConfineSpec) (Confined, error)
}

// ConfineSpec is what a hook would run unconfined: its Command (for the
// shell's -c), the directory Dir and the whole environment Env
// (KEY=VALUE); Transcript is its input's transcript_path ("": none).
type ConfineSpec struct {
	Command    string
	Dir        string
	Env        []string
	Transcript string
}

// Confined is a hook's confined process (see Runner.Confine).
type Confined struct {
	// Cmd runs the hook; nil runs it unconfined.
	Cmd *exec.Cmd
	// Start starts Cmd (a sandbox may start it in its own namespaces);
	// nil is Cmd.Start.
	Start func(*exec.Cmd) error
	// Transcript, when not "", is the transcript_path the confined hook
	// reads instead of ConfineSpec.Transcript (a copy where the sandbox
	// lets it read).
	Transcript string
}

// maxOutput caps what is kept of a hook's stdout and of its stderr.
const maxOutput = 256 << 10

// Selected returns the hooks of event whose matcher selects value, each
// command once (Claude Code runs a command defined twice once); the same
// command of two plugins, each with its own environment, runs for each.
func (r *Runner) Selected(event, value string) []Hook {
	if r == nil {
		return nil
	}
	var out []Hook
	seen := map[string]bool{}
	for _, h := range r.Hooks {
		key := h.Command + "\x00" + h.Prompt + "\x00" + strings.Join(h.Env, "\x00")
		if h.Event != event || seen[key] || !matches(h, value) {
			continue
		}
		seen[key] = true
		out = append(out, h)
	}
	return out
}

// matches applies h's matcher to value for the events that have one; the
// others (UserPromptSubmit, Stop, ...) run whatever the matcher says.
func matches(h Hook, value string) bool {
	switch h.Event {
	case PreToolUse, PostToolUse, PostToolUseFailure, PermissionRequest, SessionStart, PreCompact, PostCompact, Notification, SubagentStart:
		return Match(h.Matcher, value)
	}
	return true
}

// Run runs the hooks of in.HookEventName that match value, all at once,
// each with in on standard input and bounded by its timeout, and returns
// their results in the order of the hooks. It returns when every hook has
// exited or been killed with its process group; a cancelled ctx kills
// them. No hook is no results.
func (r *Runner) Run(ctx context.Context, value string, in Input) []Result {
	hs := r.Selected(in.HookEventName, value)
	if len(hs) == 0 {
		return nil
	}
	in.Cwd = r.Dir
	if r.Transcript != nil && in.SessionID != "" {
		in.TranscriptPath = r.Transcript(ctx, in.SessionID)
	}
	stdin, _ := json.Marshal(in)
	results := make([]Result, len(hs))
	var wg sync.WaitGroup
	for i, h := range hs {
		wg.Go(func() { results[i] = r.run(ctx, h, stdin, in.TranscriptPath) })
	}
	wg.Wait()
	return results
}

// run runs one hook with stdin, whose transcript_path is transcript.
func (r *Runner) run(ctx context.Context, h Hook, stdin []byte, transcript string) Result {
	res := Result{Hook: h, Exit: -1}
	ctx, cancel := context.WithTimeout(ctx, h.timeout())
	defer cancel()
	if h.Type == TypePrompt {
		return r.judge(ctx, h, stdin)
	}
	// The hook joins the trace of what runs it (its execute_hook span).
	env := append(append(tracecontext.WithEnv(r.Env, ctx), "CLAUDE_PROJECT_DIR="+r.Dir, "AGENT_PROJECT_DIR="+r.Dir), h.Env...)
	cmd, start := exec.Command(r.shell(), "-c", h.Command), (*exec.Cmd).Start
	cmd.Dir, cmd.Env = r.Dir, env
	if r.Confine != nil {
		c, err := r.Confine(h, ConfineSpec{Command: h.Command, Dir: r.Dir, Env: env, Transcript: transcript})
		if err != nil {
			res.Failure = "could not be confined to the sandbox: " + err.Error()
			return res
		}
		if c.Cmd != nil {
			cmd = c.Cmd
			if c.Start != nil {
				start = c.Start
			}
			if c.Transcript != "" && c.Transcript != transcript {
				stdin = withTranscript(stdin, c.Transcript)
			}
		}
	}
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr capped
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	ownGroup(cmd)
	cmd.WaitDelay = 2 * time.Second
	err := runUntil(ctx, cmd, start)
	res.Stdout, res.Stderr = stdout.String(), stderr.String()
	var exit *exec.ExitError
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		res.Failure = fmt.Sprintf("timed out after %s and was stopped", h.timeout())
	case ctx.Err() != nil:
		res.Failure = "stopped: the agent's work was cancelled"
	case errors.As(err, &exit) && exit.ExitCode() == -1:
		res.Failure = "was killed (" + exit.ProcessState.String() + ")"
	case errors.As(err, &exit) && (exit.ExitCode() == 126 || exit.ExitCode() == 127):
		// The shell's "cannot execute" and "command not found": a typo
		// in the hook's path must not turn a guard off silently.
		res.Failure = fmt.Sprintf("could not start (exit status %d): %s", exit.ExitCode(), strings.TrimSpace(res.Stderr))
	case errors.As(err, &exit):
		res.Exit = exit.ExitCode()
	case errors.Is(err, exec.ErrWaitDelay) && cmd.ProcessState != nil:
		// It exited well; a child it left in the background held its
		// output open, and what it wrote by then is its answer.
		res.Exit = cmd.ProcessState.ExitCode()
	case err != nil:
		res.Failure = "could not run: " + err.Error()
	default:
		res.Exit = 0
	}
	if res.Exit == 0 {
		if t := strings.TrimSpace(res.Stdout); strings.HasPrefix(t, "{") {
			var o Output
			if json.Unmarshal([]byte(t), &o) == nil {
				res.Output = &o
			}
		}
	}
	return res
}

// runUntil starts cmd with start and waits for it; a done ctx kills its
// process group (see ownGroup) and the wait ends within cmd.WaitDelay.
func runUntil(ctx context.Context, cmd *exec.Cmd, start func(*exec.Cmd) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := start(cmd); err != nil {
		return err
	}
	exited := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		select {
		case <-ctx.Done():
			killGroup(cmd)
		case <-exited:
		}
	}()
	err := cmd.Wait()
	close(exited)
	<-stopped
	return err
}

// withTranscript returns the input stdin (a JSON object) with
// transcript_path set to path; stdin as it was when it is not an object.
func withTranscript(stdin []byte, path string) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(stdin, &m) != nil {
		return stdin
	}
	m["transcript_path"], _ = json.Marshal(path)
	out, err := json.Marshal(m)
	if err != nil {
		return stdin
	}
	return out
}

func (r *Runner) shell() string {
	if r.Shell != "" {
		return r.Shell
	}
	if p, err := exec.LookPath("bash"); err == nil {
		return p
	}
	return "/bin/sh"
}

// capped is a buffer that keeps the first maxOutput bytes written.
type capped struct{ bytes.Buffer }

func (c *capped) Write(p []byte) (int, error) {
	if room := maxOutput - c.Len(); room > 0 {
		c.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// Exec runs h's command as a hook runs (the shell, the project directory
// and CLAUDE_PROJECT_DIR, r's environment, its own process group, confined
// as r.Confine says of h) with stdin, bounded by h's timeout, and returns
// its standard output (at most 256 KiB). It is what Claude Code's
// statusLine command runs through (h.Project for a repository's). An error
// says it could not start, timed out, was cancelled or exited non-zero
// (its stderr then ends the error).
func (r *Runner) Exec(ctx context.Context, h Hook, stdin []byte) (string, error) {
	res := r.run(ctx, h, stdin, "")
	switch {
	case res.Failure != "":
		return res.Stdout, errors.New(res.Failure)
	case res.Exit != 0:
		return res.Stdout, fmt.Errorf("exit status %d: %s", res.Exit, strings.TrimSpace(res.Stderr))
	}
	return res.Stdout, nil
}
