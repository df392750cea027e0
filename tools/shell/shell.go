// Package shell provides the bash tool: it runs `bash -c COMMAND` in the
// working directory with stdin closed, stdout and stderr merged in the order
// written, a capped output, a timeout, and the whole process group stopped
// (SIGTERM, then SIGKILL after a grace period) on timeout or cancellation.
//
// The process to start is made by a Builder (BashCommand by default), the
// seam where an OS sandbox will wrap the command.
package shell

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/agent-dev/agent/telemetry/tracecontext"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/background"
)

//go:embed bash.md
var description string

// Defaults applied by New to zero Config fields.
const (
	DefaultTimeout     = 2 * time.Minute
	DefaultMaxTimeout  = 10 * time.Minute
	DefaultOutputLimit = 30_000 // bytes
	DefaultKillGrace   = 2 * time.Second
)

// pipeDrain is how long Run keeps reading the output pipe after bash has
// exited, while something else (a background job) still holds it open. Then
// the pipe is closed and the rest of the process group is killed.
const pipeDrain = 250 * time.Millisecond

// Config configures the bash tool. Zero fields take the defaults above.
type Config struct {
	// Dir is the working directory of every command; "" is the agent's own.
	Dir string
	// DefaultTimeout applies when the call gives no timeout_ms.
	DefaultTimeout time.Duration
	// MaxTimeout is the largest timeout_ms the schema accepts.
	MaxTimeout time.Duration
	// OutputLimit is the most output, in bytes, kept for the model: the
	// first 40% and the last 60%, the middle replaced by a marker.
	OutputLimit int
	// KillGrace is how long a stopped command has between SIGTERM and
	// SIGKILL.
	KillGrace time.Duration
	// Env is the environment commands start from (KEY=VALUE); nil means the
	// agent's own (os.Environ at New).
	Env []string
	// StripEnv names variables never passed to commands, such as the one the
	// configuration says holds the API key. OPENAI_API_KEY is always
	// stripped. Names compare case-insensitively.
	StripEnv []string
	// EnvKeep are patterns of variable names passed to commands although
	// they look like secrets (DefaultEnvRemove); EnvRemove are further
	// patterns of names never passed. See EnvFilter.
	EnvKeep, EnvRemove []string
	// ExtraEnv are variables (KEY=VALUE) set in every command's
	// environment after the filter: the sandbox's TMPDIR.
	ExtraEnv []string
	// Build makes the process for a command; nil means BashCommand. A
	// sandbox replaces it.
	Build Builder
	// Start starts a command Build or BuildBackground made; nil means
	// cmd.Start. A sandbox's starts its commands in the session's network
	// namespace.
	Start func(*exec.Cmd) error
	// BuildBackground makes the process for a run_in_background command;
	// nil means Build. A sandbox's supervises what would run unconfined,
	// so that nothing outlives the agent.
	BuildBackground Builder
	// Guard, when not nil, is called before each command is built; the function it
	// returns (nil: none) is called with the result after the command and
	// everything it started have ended, and the text it returns, when not
	// empty, is added to the result (a sandbox undoing what a command must
	// not leave behind, or explaining a refusal).
	Guard func() func(tools.Result) string
	// GuardBackground is Guard for a run_in_background command; nil means
	// Guard.
	GuardBackground func() func(tools.Result) string
	// Confinement, when not empty, is a sentence added to the tool's
	// description that tells the model what the sandbox lets commands do
	// ("Commands run in a sandbox: ..."), so that it does not waste calls
	// on what will be refused.
	Confinement string
	// Background, when not nil, keeps commands running after their call
	// returns: the schema offers run_in_background. Nil: every command
	// runs to its end within its call.
	Background Background
	// Detachable, with Background, lets the person send a running command
	// to the background (the interface's Ctrl+B): every command is then
	// built with BuildBackground (supervised, so that it dies with a
	// killed agent wherever it ends up) and registered while it runs.
	Detachable bool
}

// Background is where commands go that outlive their call (package
// background's Manager).
type Background interface {
	// Start takes over cmd, built but not started for a call of
	// conversation session, starts it with start and returns its id.
	Start(cmd *exec.Cmd, command, session string, start func(*exec.Cmd) error, after func(exitCode int) string) (id string, err error)
	// Adopt takes over a running foreground command and returns its id.
	Adopt(a background.Adopted) (id string, err error)
	// Foreground registers a running foreground command: detach is
	// closed when the person sends it to the background; release
	// unregisters it.
	Foreground() (detach <-chan struct{}, release func())
}

// Tool is the bash tool. It is safe for concurrent use.
type Tool struct {
	cfg Config
	env func() []string // the child environment, computed at the first command
	def tools.Definition
	// buildAgain: commands are started by Config.Start, the Builder's
	// own, so their Spec may have BuildAgain.
	buildAgain bool
}

var _ tools.Tool = (*Tool)(nil)

// New returns the bash tool for cfg, with defaults filled in. The child
// environment is computed once, at the first command (filtering it for
// secrets compiles their patterns: a run that runs no command skips it).
func New(cfg Config) *Tool {
	if cfg.DefaultTimeout <= 0 {
		cfg.DefaultTimeout = DefaultTimeout
	}
	if cfg.MaxTimeout <= 0 {
		cfg.MaxTimeout = DefaultMaxTimeout
	}
	cfg.DefaultTimeout = min(cfg.DefaultTimeout, cfg.MaxTimeout)
	if cfg.OutputLimit <= 0 {
		cfg.OutputLimit = DefaultOutputLimit
	}
	if cfg.KillGrace <= 0 {
		cfg.KillGrace = DefaultKillGrace
	}
	if cfg.Build == nil {
		cfg.Build = BashCommand
	}
	if cfg.BuildBackground == nil {
		cfg.BuildBackground = cfg.Build
	}
	buildAgain := cfg.Start != nil
	if cfg.Start == nil {
		cfg.Start = (*exec.Cmd).Start
	}
	base := cfg.Env
	if base == nil {
		base = os.Environ()
	}
	f := EnvFilter{Strip: cfg.StripEnv, Keep: cfg.EnvKeep, Remove: cfg.EnvRemove}
	return &Tool{cfg: cfg, env: sync.OnceValue(func() []string { return childEnv(base, f, cfg.ExtraEnv) }), def: definition(cfg),
		buildAgain: buildAgain}
}

func definition(cfg Config) tools.Definition {
	desc := strings.NewReplacer(
		"{{default_timeout}}", humanDuration(cfg.DefaultTimeout),
		"{{max_timeout}}", humanDuration(cfg.MaxTimeout),
		"{{output_limit}}", fmt.Sprintf("%d bytes", cfg.OutputLimit),
	).Replace(description)
	if cfg.Background != nil {
		desc = strings.Replace(desc, backgroundStopped, backgroundKept, 1)
	}
	if cfg.Confinement != "" {
		desc = strings.TrimRight(desc, "\n") + "\n- " + cfg.Confinement + "\n"
	}
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"command": map[string]any{
				"type":        "string",
				"minLength":   1,
				"description": "The command line, run as `bash -c COMMAND` in the working directory.",
			},
			"timeout_ms": map[string]any{
				"type":    "integer",
				"minimum": 1,
				"maximum": cfg.MaxTimeout.Milliseconds(),
				"description": fmt.Sprintf("Milliseconds before the command is stopped; default %d.",
					cfg.DefaultTimeout.Milliseconds()),
			},
		},
		"required":             []string{"command"},
		"additionalProperties": false,
	}
	if cfg.Background != nil {
		schema["properties"].(map[string]any)["run_in_background"] = map[string]any{
			"type":        "boolean",
			"description": "Start the command in the background and return at once with its id; read its output with bash_output, stop it with kill_shell.",
		}
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		panic(err) // a literal map of strings and numbers always encodes
	}
	return tools.Definition{Name: "bash", Description: desc, Schema: raw, Effects: tools.RunsCommands,
		Kind: tools.KindExecute, Summarize: summarize}
}

// summarize reads a call as its command's first line ("…" when more lines
// follow) and the whole command.
func summarize(raw string) tools.Summary {
	var a args
	if json.Unmarshal([]byte(raw), &a) != nil || a.Command == "" {
		return tools.DefaultSummary(raw)
	}
	first, _, more := strings.Cut(strings.TrimSpace(a.Command), "\n")
	title := tools.OneLine(first)
	if more {
		title += " …"
	}
	return tools.Summary{Title: title, Full: a.Command}
}

// progressLines is how many of a running command's last lines its progress
// shows; progressEvery is how often it is reported while output comes.
const (
	progressLines = 5
	progressEvery = 250 * time.Millisecond
)

// humanDuration writes d as "2 minutes", "90 seconds" or "1500 ms".
func humanDuration(d time.Duration) string {
	switch {
	case d%time.Minute == 0:
		if d == time.Minute {
			return "1 minute"
		}
		return fmt.Sprintf("%d minutes", d/time.Minute)
	case d%time.Second == 0:
		return fmt.Sprintf("%d seconds", d/time.Second)
	default:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
}

// detachable reports whether a running command may be sent to the
// background.
func (t *Tool) detachable() bool { return t.cfg.Background != nil && t.cfg.Detachable }

// Definition implements tools.Tool.
func (t *Tool) Definition() tools.Definition { return t.def }

type args struct {
	Command      string `json:"command"`
	TimeoutMS    int64  `json:"timeout_ms"`
	InBackground bool   `json:"run_in_background"`
}

// The description's line on background jobs, without and with background
// processes.
const (
	backgroundStopped = "- Background processes (`cmd &`) are stopped when the command ends; this tool cannot keep a server running.\n"
	backgroundKept    = "- To keep a server, watcher or long build running while you work, set `run_in_background`: the call returns at once\n" +
		"  with the process's id; read its new output with `bash_output`, stop it with `kill_shell`. You are told when one\n" +
		"  exits; all are stopped when the session ends. Jobs started with `cmd &` are still stopped when the command ends.\n"
)

// Run implements tools.Tool. It starts the command and waits until it exits,
// its timeout passes or ctx is cancelled.
//
// A command that exits, with any status, gives a normal result whose last
// line is the status ("exit status 2"). A timeout or cancellation stops the
// process group and gives an error result with the output so far and a line
// saying what happened. Meta holds exit_code (-1 when killed by a signal),
// duration_ms, output_bytes (all the output, before the cap), truncated,
// timed_out and cancelled.
//
// While the command runs, the call's progress gets its last lines of
// output, at most every 250 ms and only when there is new output.
//
// Run returns a Go error only when waiting for the process itself fails.
func (t *Tool) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	var a args
	if err := json.Unmarshal(call.Args, &a); err != nil {
		return tools.Errorf("bash: arguments: %v", err), nil
	}
	if strings.TrimSpace(a.Command) == "" {
		return tools.Errorf("bash: the command is empty"), nil
	}
	timeout := t.cfg.DefaultTimeout
	if a.TimeoutMS > 0 {
		timeout = min(time.Duration(a.TimeoutMS)*time.Millisecond, t.cfg.MaxTimeout)
	}
	if ctx.Err() != nil {
		return tools.Errorf("bash: cancelled before the command started"), nil
	}
	if a.InBackground && t.cfg.Background == nil {
		return tools.Errorf("bash: run_in_background is not available here; run the command in the foreground"), nil
	}
	// The guard looks before the command is built: a Builder may take the
	// time at which the command's changes begin (a sandbox's helper waits
	// until files' change times are past it).
	var after func(tools.Result) string
	if guard := t.cfg.Guard; a.InBackground && t.cfg.GuardBackground != nil {
		after = t.cfg.GuardBackground()
	} else if guard != nil {
		after = guard()
	}
	// The command joins the trace of the call that runs it (TRACEPARENT).
	// A command the person may send to the background (Ctrl+B) is built
	// to be supervised, as a background one is.
	build := t.cfg.Build
	if a.InBackground || t.detachable() {
		build = t.cfg.BuildBackground
	}
	spec := Spec{Command: a.Command, Dir: t.cfg.Dir, Env: tracecontext.WithEnv(t.env(), ctx), KillGrace: t.cfg.KillGrace,
		Background: a.InBackground, BuildAgain: t.buildAgain && !a.InBackground}
	cmd, err := build(spec)
	if err != nil {
		return tools.Errorf("bash: %v", err), nil
	}
	if a.InBackground {
		return t.startBackground(cmd, a.Command, call.Session, after), nil
	}
	out := newCapture(t.cfg.OutputLimit)
	sw := &switchWriter{w: out}
	connect := func(cmd *exec.Cmd) {
		cmd.Stdin = nil // os/exec connects it to the null device
		cmd.Stdout = sw
		cmd.Stderr = sw // the same writer: os/exec gives the child one pipe for both
		cmd.WaitDelay = pipeDrain
		setProcessGroup(cmd)
	}
	connect(cmd)

	var detach <-chan struct{}
	if t.detachable() {
		var release func()
		detach, release = t.cfg.Background.Foreground()
		defer release()
	}
	start := time.Now()
	err = t.cfg.Start(cmd)
	if errors.Is(err, ErrBuildAgain) {
		if cmd, err = build(spec); err != nil {
			return tools.Errorf("bash: %v", err), nil
		}
		// Whatever the first wrote while it failed is not this one's.
		out = newCapture(t.cfg.OutputLimit)
		sw = &switchWriter{w: out}
		connect(cmd)
		err = t.cfg.Start(cmd)
	}
	if err != nil {
		return tools.Errorf("bash: starting the command: %v", err), nil
	}
	stop := reportProgress(call, out)
	ending, done, waitErr := t.wait(ctx, cmd, timeout, detach)
	stop()
	elapsed := time.Since(start)
	if ending == detached {
		return t.adopt(cmd, a.Command, call.Session, out, sw, done, after, elapsed), nil
	}
	if cmd.ProcessState == nil {
		return tools.Result{}, fmt.Errorf("waiting for bash: %w", waitErr)
	}
	res := t.result(ending, cmd.ProcessState, out, timeout, elapsed)
	if after != nil {
		if note := after(res); note != "" {
			res.Content += "\n" + note
			res.Meta["guard"] = note
		}
	}
	return res, nil
}

// reportProgress hands call's progress the last lines of out while the
// command runs, when they changed; the returned function stops it and
// returns once it has stopped.
func reportProgress(call tools.Call, out *capture) (stop func()) {
	if call.Progress == nil {
		return func() {}
	}
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(progressEvery)
		defer tick.Stop()
		var seen int64
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			if text, total := out.Tail(progressLines); total != seen {
				seen = total
				call.Report(tools.Progress{Text: text})
			}
		}
	}()
	return func() { close(done); <-stopped }
}

// ending says why a command stopped.
type ending int

const (
	exited ending = iota
	timedOut
	cancelled
	detached // sent to the background while it ran
)

// wait waits for the started cmd to finish, stopping its process group on
// timeout or cancellation: SIGTERM, then SIGKILL after the grace period
// (interrupt before kill, as golang.org/x/tools internal/gocommand does).
// When it returns, the process has been reaped and the output pipe is
// closed; whatever was left in the group (background jobs) has been sent
// SIGKILL. It returns the error of cmd.Wait.
//
// When detach is closed first (the person sent the command to the
// background), it returns at once with ending detached and the channel
// that will deliver cmd.Wait's error (nil otherwise); the command goes on
// running.
func (t *Tool) wait(ctx context.Context, cmd *exec.Cmd, timeout time.Duration, detach <-chan struct{}) (ending, <-chan error, error) {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var why ending
	var err error
	select {
	case err = <-done:
	case <-timer.C:
		why = timedOut
	case <-ctx.Done():
		why = cancelled
	case <-detach:
		return detached, done, nil
	}
	if why != exited {
		terminateGroup(cmd)
		grace := time.NewTimer(t.cfg.KillGrace)
		select {
		case err = <-done:
		case <-grace.C:
			killGroup(cmd)
			err = <-done // bash is dead; WaitDelay bounds the pipe
		}
		grace.Stop()
	}
	// bash has exited: kill what it left running in its group (background
	// jobs), or they would outlive the call. The group id cannot have been
	// reused while a member lives; when the group is empty this is a no-op
	// unless the id was recycled in the last instant, which the kernel's
	// sequential pid allocation makes practically impossible.
	killGroup(cmd)
	return why, nil, err
}

// result writes the model's view of a finished command.
func (t *Tool) result(why ending, state *os.ProcessState, out *capture, timeout, elapsed time.Duration) tools.Result {
	text, truncated := out.String()
	var b strings.Builder
	b.WriteString(text)
	if text != "" && !strings.HasSuffix(text, "\n") {
		b.WriteByte('\n')
	}
	switch why {
	case exited:
		b.WriteString(state.String()) // "exit status 2", "signal: killed"
	case timedOut:
		fmt.Fprintf(&b, "bash: timed out after %d ms; the command was stopped (%s)", timeout.Milliseconds(), state)
	case cancelled:
		fmt.Fprintf(&b, "bash: cancelled; the command was stopped (%s)", state)
	}
	return tools.Result{
		Content: b.String(),
		IsError: why != exited,
		Meta: map[string]any{
			tools.MetaExitCode: state.ExitCode(),
			"duration_ms":      elapsed.Milliseconds(),
			"output_bytes":     out.Total(),
			"truncated":        truncated,
			"timed_out":        why == timedOut,
			"cancelled":        why == cancelled,
		},
	}
}
