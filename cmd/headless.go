package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/mention"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/tools/plan"
	"github.com/agent-dev/agent/turn"
)

// runHeadless answers one prompt without a user interface: it composes the
// prompt (argument and piped input), resolves the configuration, runs one
// turn through the turn runner and prints it in the chosen output format.
func runHeadless(ctx context.Context, o *Options, st Streams, getenv func(string) string) error {
	switch o.OutputFormat {
	case formatText, formatJSON, formatStreamJSON:
	default:
		return usagef("unknown output format %q: use text, json or stream-json", o.OutputFormat)
	}
	if o.SDK.InputFormat == inputStreamJSON {
		return runSDKStream(ctx, o, st, getenv)
	}
	dir, err := workingDir(o.Dir)
	if err != nil {
		return err
	}
	prompt, err := headlessPrompt(ctx, o, st)
	if err != nil {
		return err
	}
	if o.Resume == resumePick {
		return usagef("--resume needs a session id in headless mode (agent sessions list shows them)")
	}
	if noted, err := rememberPrompt(o, st, getenv, dir, prompt.Message.Text()); noted {
		return err
	}
	f, err := openFrontEnd(ctx, o, getenv, dir)
	if err != nil {
		return err
	}
	defer f.Close()
	s := f.a.settings
	if o.Verbose {
		fmt.Fprintf(st.Err, "· %s\n", s.describe())
	}
	for _, w := range f.a.agentWarnings {
		fmt.Fprintln(st.Err, "agent: "+w)
	}
	warn := func(msg string) { fmt.Fprintln(st.Err, "agent: "+msg) }
	trust := f.a.trustStore(o, getenv)
	f.useExtensions(true, headlessHookTrust(trust, f.a.dir, o.TrustProject, warn), headlessCommandTrust(trust, f.a.dir, o.TrustProject), warn)
	startHeadlessMCP(ctx, o, st, getenv, f)
	run, err := headlessSession(ctx, o, st, getenv, f, prompt.Message.Text())
	if err != nil {
		return err
	}
	f.startSession(ctx, run.record.ID, f.resumed != nil)
	mode, err := permissionMode(o, false)
	if err != nil {
		return err
	}
	f.a.plan.set(mode) // printTurn answers the plans: nobody approves one here, it is the answer
	l, err := f.a.newLoop(s.Model, f.store.Recorder(run.record.ID), headlessApproval(f.a.policy(mode, o.AllowBash)))
	if err != nil {
		return err
	}
	p := newPrinter(o.OutputFormat, st.Out, st.Err, o.Verbose || st.ErrIsTerminal)
	if err := p.init(run.record.ID, s.Model, f.a.dir, s.Tools, f.a.catalog.Current().Names()); err != nil {
		return err
	}
	return printTurn(ctx, f, l, run, prompt, p)
}

// headlessPrompt composes a headless run's prompt from the argument and
// standard input; its typed part, whose @path mentions are attached, is the
// argument, or standard input when that is the whole prompt (piped input
// beside an argument is data, and its @ words stay text).
func headlessPrompt(ctx context.Context, o *Options, st Streams) (turn.Prompt, error) {
	in, err := headlessStdin(ctx, o, st)
	if err != nil {
		return turn.Prompt{}, err
	}
	prompt := composePrompt(o.Prompt, in)
	if strings.TrimSpace(prompt) == "" {
		if in.TimedOut {
			return turn.Prompt{}, usagef("%w (nothing arrived on standard input within %s)", errNoPrompt, stdinIdle)
		}
		if prompt != "" {
			return turn.Prompt{}, usagef("%w (the prompt is only white space)", errNoPrompt)
		}
		return turn.Prompt{}, usageError{errNoPrompt}
	}
	p := turn.Text(prompt)
	if o.Prompt != "" {
		p.Typed = o.Prompt
	}
	if err := attachImageFiles(&p.Message, o.Images); err != nil {
		return turn.Prompt{}, err
	}
	return p, nil
}

// headlessStdin reads standard input when it is piped and not turned off.
func headlessStdin(ctx context.Context, o *Options, st Streams) (stdinResult, error) {
	if !st.InPiped || o.NoStdin {
		return stdinResult{}, nil
	}
	// With a prompt argument, stdin is optional context: a silent pipe is
	// ignored after --stdin-timeout. Without one, stdin is the prompt: it
	// may take longer to come, up to the idle limit.
	lim := stdinLimits{First: o.StdinTimeout, Idle: stdinIdle, Total: o.StdinMaxRead}
	if o.Prompt == "" {
		lim.First = stdinIdle
	}
	if o.StdinTimeout == 0 {
		lim = stdinLimits{}
	}
	if o.Verbose {
		fmt.Fprintln(st.Err, "· reading standard input (--no-stdin skips it)")
	}
	in, err := readStdin(ctx, st.In, lim)
	if err != nil {
		if ctx.Err() != nil {
			return in, turnError{loop.StopCancelled, errors.New("interrupted")}
		}
		return in, err
	}
	if in.TimedOut && o.Verbose && o.Prompt != "" {
		fmt.Fprintf(st.Err, "· standard input sent nothing within %s; ignoring it (--no-stdin skips it)\n", o.StdinTimeout)
	}
	if in.Protocol != "" {
		return in, usagef("%s", in.Protocol)
	}
	if msg := in.describe(); msg != "" {
		fmt.Fprintln(st.Err, "agent: "+msg)
	}
	if kind := binaryInput(in.Data); kind != "" {
		return in, usagef("standard input is not text (%s, %d bytes): agent sends text to the model; name the file in the prompt instead, or --no-stdin", kind, len(in.Data))
	}
	return in, nil
}

// startHeadlessMCP starts the MCP servers (a project's only when that very
// definition was trusted before, or with --trust-project-mcp; stderr says
// which were skipped and why) and waits for them, each up to its
// startup_timeout, so their tools are offered from the first request.
func startHeadlessMCP(ctx context.Context, o *Options, st Streams, getenv func(string) string, f *frontEnd) {
	a := f.a
	for _, l := range gateProject(a.mcpCfgs, a.mcpProject, a.trustStore(o, getenv), a.dir, o.TrustProjectMCP || o.TrustProject) {
		fmt.Fprintln(st.Err, "agent: "+l)
	}
	a.newMCP(func(msg string) { fmt.Fprintln(st.Err, "agent: "+msg) })
	a.mcp.Start(ctx)
	a.mcp.Wait(ctx)
}

// headlessSession is the session a headless run goes on: the one -c or -r
// named, or a new one titled by the prompt. The AGENTS.md watch and the
// session's lease end with the front-end.
func headlessSession(ctx context.Context, o *Options, st Streams, getenv func(string) string, f *frontEnd, prompt string) (*session, error) {
	notice, watch := f.a.watchAgentsMD(o, getenv)
	f.onClose(watch.finish)
	if notice != "" {
		fmt.Fprintln(st.Err, "agent: "+notice)
	}
	run := f.resumed
	if run != nil && run.notice != "" {
		fmt.Fprintln(st.Err, "agent: "+run.notice)
	}
	// A continued session keeps its system prompt: it is never written
	// again (Codex #16213).
	if run == nil {
		var err error
		if run, err = newSession(ctx, f.store, f.a, f.a.settings.Model, f.a.systemPrompt(), prompt); err != nil {
			return nil, err
		}
	}
	f.release(ctx, run.record.ID)
	if o.Verbose {
		fmt.Fprintf(st.Err, "· session %s (%d earlier messages)\n", run.record.ID, run.conv.Len())
	}
	return run, nil
}

// printTurn runs the turn through the runner and prints its events, then
// its end, and maps how it ended to the run's error (and so its exit code).
// A failed write (the reader of stdout went away) cancels the turn; the
// events are still drained so its tools stop cleanly.
func printTurn(ctx context.Context, f *frontEnd, l *loop.Loop, run *session, prompt turn.Prompt, p *printer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// A plan is the answer: the turn ends as the plan is given, before the
	// loop could send another request.
	f.a.plan.useDecider(func(ctx context.Context, callID, text string) (plan.Outcome, error) {
		cancel()
		return headlessPlan(ctx, callID, text)
	})
	var done loop.Done
	var writeErr error
	planText := ""
	for ev := range f.turns.Turn(ctx, l, run.conv, prompt) {
		if d, ok := ev.(loop.Done); ok {
			done = d
			continue
		}
		if text, ok := stopsWithPlan(ev); ok && planText == "" {
			planText = text
		}
		if writeErr == nil {
			if writeErr = p.event(ev); writeErr != nil {
				cancel()
			}
		}
	}
	if planText != "" && writeErr == nil {
		done.Answer, done.Reason, done.Err = planText, loop.StopAnswered, nil
	}
	if writeErr != nil {
		return fmt.Errorf("writing output: %w", writeErr)
	}
	s := f.a.settings
	p.pricer = tuiPricer(s) // as the SDK's protocol prices: each model at its own price
	if p.costed(s.Model) {
		own := done.Usage
		if ss, err := f.store.Get(context.WithoutCancel(ctx), run.record.ID); err == nil {
			own = ss.Usage
		}
		p.sessionSpend = providers.NewSpend(p.pricer)
		p.sessionSpend.Add(s.Model, own)
		if sub, err := f.store.SubagentUsageByModel(context.WithoutCancel(ctx), run.record.ID); err == nil {
			for model, u := range sub { // the subagents' work is the session's too
				p.sessionSpend.Add(model, u)
			}
		}
	}
	if err := p.finish(done, run.record.ID, s.Model); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	switch done.Reason {
	case loop.StopCancelled:
		return turnError{done.Reason, errors.New("interrupted")}
	case loop.StopError, loop.StopMaxTokens, loop.StopContextFull, loop.StopRefused:
		return turnError{done.Reason, done.Err}
	}
	if done.Err != nil { // the turn ended well, but its end was not recorded
		return done.Err
	}
	return turnError{reason: done.Reason}
}

// workingDir returns the absolute working directory: dir, or the current
// directory when dir is empty. It must be an existing directory.
func workingDir(dir string) (string, error) {
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("current directory: %w", err)
		}
		return wd, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", usagef("working directory %s: %w", dir, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", usagef("working directory: %w", err)
	}
	if !fi.IsDir() {
		return "", usagef("working directory %s is not a directory", abs)
	}
	return abs, nil
}

// describeAttachment is one line about a mention that was attached (or,
// existing, was not), for the progress lines on stderr.
func describeAttachment(at mention.Attachment) string {
	if at.Skipped != "" {
		return fmt.Sprintf("not attached: %s (%s)", at.Path, at.Skipped)
	}
	what := fmt.Sprintf("attached %s (%d bytes", at.Path, at.Bytes)
	if at.Cut {
		what += ", cut"
	}
	return what + ")"
}
