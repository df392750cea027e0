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
	"github.com/agent-dev/agent/sessions"
)

// runHeadless answers one prompt without a user interface: it composes the
// prompt (argument and piped input), resolves the configuration, runs one
// turn and prints it in the chosen output format.
func runHeadless(ctx context.Context, o *Options, st Streams, getenv func(string) string) error {
	switch o.OutputFormat {
	case formatText, formatJSON, formatStreamJSON:
	default:
		return usagef("unknown output format %q: use text, json or stream-json", o.OutputFormat)
	}
	dir, err := workingDir(o.Dir)
	if err != nil {
		return err
	}
	progress := o.Verbose || st.ErrIsTerminal

	var in stdinResult
	if st.InPiped && !o.NoStdin {
		// With a prompt argument, stdin is optional context: a silent pipe
		// is ignored after --stdin-timeout. Without one, stdin is the
		// prompt: it may take longer to come, up to the idle limit.
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
		if in, err = readStdin(ctx, st.In, lim); err != nil {
			if ctx.Err() != nil {
				return turnError{loop.StopCancelled, errors.New("interrupted")}
			}
			return err
		}
		if in.TimedOut && o.Verbose && o.Prompt != "" {
			fmt.Fprintf(st.Err, "· standard input sent nothing within %s; ignoring it (--no-stdin skips it)\n", o.StdinTimeout)
		}
		if msg := in.describe(); msg != "" {
			fmt.Fprintln(st.Err, "agent: "+msg)
		}
		if kind := binaryInput(in.Data); kind != "" {
			return usagef("standard input is not text (%s, %d bytes): agent sends text to the model; name the file in the prompt instead, or --no-stdin", kind, len(in.Data))
		}
	}
	prompt := composePrompt(o.Prompt, in)
	if strings.TrimSpace(prompt) == "" {
		if in.TimedOut {
			return usagef("%w (nothing arrived on standard input within %s)", errNoPrompt, stdinIdle)
		}
		if prompt != "" {
			return usagef("%w (the prompt is only white space)", errNoPrompt)
		}
		return usageError{errNoPrompt}
	}

	if o.Resume == resumePick {
		return usagef("--resume needs a session id in headless mode (agent sessions list shows them)")
	}
	if noted, err := rememberPrompt(o, st, getenv, dir, prompt); noted {
		return err
	}
	a, store, run, err := openSession(ctx, o, getenv, dir)
	if err != nil {
		return err
	}
	defer store.Close()
	defer a.root.Close()
	defer a.sandbox.Close() // removes the commands' temporary directory and cgroup
	dir = a.dir
	s := a.settings
	if o.Verbose {
		fmt.Fprintf(st.Err, "· %s\n", s.describe())
	}
	// MCP servers start now and the run waits for them (each up to its
	// startup_timeout), so their tools are offered from the first request.
	if !o.TrustProjectMCP {
		if skipped := skipProject(a.mcpCfgs, a.mcpProject); len(skipped) > 0 {
			fmt.Fprintf(st.Err, "agent: not starting the MCP servers of %s: %s (they run the repository's code; --trust-project-mcp starts them)\n",
				projectMCPFile, strings.Join(skipped, ", "))
		}
	}
	a.newMCP(func(msg string) { fmt.Fprintln(st.Err, "agent: "+msg) })
	a.mcp.Start(ctx)
	defer a.closeMCP()
	a.mcp.Wait(ctx)
	notice, watch := a.watchAgentsMD(o, getenv)
	defer watch.finish()
	if notice != "" {
		fmt.Fprintln(st.Err, "agent: "+notice)
	}
	if run != nil && run.notice != "" {
		fmt.Fprintln(st.Err, "agent: "+run.notice)
	}
	// A continued session keeps its system prompt: it is never written
	// again (Codex #16213).
	if run == nil {
		if run, err = newSession(ctx, store, a, s.Model, a.systemPrompt(), prompt); err != nil {
			return err
		}
	}
	sess, conv := run.record, run.conv
	// The next -c continues this session at once, whatever the process
	// does after the turn.
	defer store.Release(context.WithoutCancel(ctx), sess.ID)
	a.useSession(sess.ID, store.Journal(sess.ID))
	if o.Verbose {
		fmt.Fprintf(st.Err, "· session %s (%d earlier messages)\n", sess.ID, conv.Len())
	}
	mode, err := permissionMode(o, false)
	if err != nil {
		return err
	}
	l, err := a.newLoop(s.Model, store.Recorder(sess.ID), headlessApproval(a.policy(mode, o.AllowBash)))
	if err != nil {
		return err
	}
	if err := store.SetStatus(ctx, sess.ID, sessions.StatusRunning); err != nil {
		return err
	}

	// @path mentions of the typed prompt (the argument, or standard input
	// when it is the whole prompt) are attached after it; piped input
	// given beside an argument is data, and its @ words stay text.
	typed := o.Prompt
	if typed == "" {
		typed = prompt
	}
	expanded, atts := a.mentions.Expand(ctx, typed)
	prompt += strings.TrimPrefix(expanded, typed)
	if progress {
		for _, at := range atts {
			fmt.Fprintf(st.Err, "· %s\n", describeAttachment(at))
		}
	}

	sessionID := sess.ID
	p := newPrinter(o.OutputFormat, st.Out, st.Err, progress)
	if err := p.init(sessionID, s.Model, dir, s.Tools, a.catalog.Current().Names()); err != nil {
		return err
	}
	// A failed write (the reader of stdout went away) cancels the turn;
	// the loop's events are still drained so its tools stop cleanly.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var done loop.Done
	var writeErr error
	for ev := range l.Run(ctx, conv, prompt) {
		if d, ok := ev.(loop.Done); ok {
			done = d
			continue
		}
		if writeErr == nil {
			if writeErr = p.event(ev); writeErr != nil {
				cancel()
			}
		}
	}
	if err := store.SetStatus(context.WithoutCancel(ctx), sess.ID, sessionStatus(done.Reason)); err != nil && done.Err == nil {
		done.Err = err
	}
	if writeErr != nil {
		return fmt.Errorf("writing output: %w", writeErr)
	}
	if price, ok := s.price(); ok {
		p.price = &price
		p.sessionUsage = done.Usage
		if ss, err := store.Get(context.WithoutCancel(ctx), sess.ID); err == nil {
			p.sessionUsage = ss.Usage
		}
	}
	if err := p.finish(done, sessionID, s.Model); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	switch done.Reason {
	case loop.StopCancelled:
		return turnError{done.Reason, errors.New("interrupted")}
	case loop.StopError, loop.StopMaxTokens, loop.StopContextFull, loop.StopRefused:
		return turnError{done.Reason, done.Err}
	}
	return turnError{reason: done.Reason}
}

// sessionStatus is the session's status after a turn that ended so.
func sessionStatus(r loop.StopReason) sessions.Status {
	switch r {
	case loop.StopCancelled:
		return sessions.StatusCancelled
	case loop.StopError, loop.StopMaxTokens, loop.StopContextFull, loop.StopRefused:
		return sessions.StatusFailed
	}
	return sessions.StatusCompleted
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
