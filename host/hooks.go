package host

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"

	"github.com/agent-dev/agent/hooks"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sessions"
	"github.com/agent-dev/agent/telemetry"
	"github.com/agent-dev/agent/tools"
)

// hookSet runs the hooks of a front-end's run, each event from one call
// site: PreToolUse as the loop's gate, PostToolUse after a call, Stop and
// SubagentStop before a turn ends, PreCompact when a compaction starts,
// UserPromptSubmit in the turn runner's Submit, SessionStart and
// SessionEnd where the front-end opens and closes its session,
// Notification when a person is asked. A repository's hooks run once the
// person trusted them: trusted is asked once, before the first hook runs.
// Its methods are safe for concurrent use; a nil *hookSet runs nothing.
type hookSet struct {
	all      []hooks.Hook
	dir      string
	headless bool
	env      []string
	mode     func() string
	// warn shows a line to the person: stderr headless, a note in the
	// interface.
	warn func(string)
	// trusted returns the repository's hooks the person trusts (asking
	// them, in the interface); ok false when nobody answered, so that the
	// next hook asks again.
	trusted func(ctx context.Context, project []hooks.Hook) (run []hooks.Hook, ok bool)
	// store and transcripts: where the session's transcript is exported
	// for transcript_path (nil store: no transcript).
	store       *sessions.Store
	transcripts string
	// tmu guards written: what this run wrote of each session's
	// transcript, which later hooks' exports append to.
	tmu     sync.Mutex
	written map[string]transcriptFile

	// resolving is held while the repository's hooks' trust is asked.
	resolving sync.Mutex
	runner    *hooks.Runner // nil until resolved

	// tel traces each event's hooks (execute_hook); nil: off.
	tel *telemetry.Telemetry
	// judge asks the session's model a prompt hook's question.
	judge func(ctx context.Context, prompt string) (string, error)
	// confine runs a repository's and plugins' hooks in the session's
	// sandbox (nil: none); unconfined says, once hooks are resolved, that
	// they run as the person for want of a sandbox ("": they do not).
	confine    func(hooks.Hook, hooks.ConfineSpec) (hooks.Confined, error)
	unconfined func(run []hooks.Hook) string
	copies     hookCopies // the transcripts' copies confined hooks read

	mu       sync.Mutex
	started  chan struct{} // closed once SessionStart's hooks ran
	startCtx []string      // SessionStart's context, for the next prompt
}

// newHookSet prepares the hooks of a's session for front-end fe: a
// repository's run once trusted (fe.Trust, remembered in trust), their
// transcripts are exported from store. It returns nil when no hook is
// configured, so that the loop gets no gate and nothing is exported.
func newHookSet(a *agent, fe FrontEnd, trust *trustStore, store *sessions.Store, tel *telemetry.Telemetry) *hookSet {
	if len(a.ext.hooks) == 0 {
		return nil
	}
	s := a.settings
	env := s.CommandEnviron()
	h := &hookSet{all: a.ext.hooks, dir: a.dir, headless: !fe.Interactive, env: env, mode: a.plan.get, warn: fe.warn, started: make(chan struct{}), tel: tel,
		store: store, transcripts: filepath.Join(filepath.Dir(store.Path()), "transcripts")}
	close(h.started) // until a SessionStart runs
	h.judge = a.judge
	if sb := a.sandbox; sb != nil {
		h.confine = hookConfine(sb, s.Sandbox, &h.copies)
		h.unconfined = func(run []hooks.Hook) string { return unconfinedHooksNote(run, s.Sandbox, sb.Brief()) }
	}
	if fe.Trust.Ask != nil && trust != nil {
		h.trusted = askHookTrust(trust, a.dir, fe.Trust.Ask, fe.warn)
	} else {
		h.trusted = headlessHookTrust(trust, a.dir, fe.Trust.Hooks, fe.warn)
	}
	return h
}

// active returns the runner of the hooks that may run, resolving the
// repository's hooks' trust first (once answered).
func (h *hookSet) active(ctx context.Context) *hooks.Runner {
	h.resolving.Lock()
	defer h.resolving.Unlock()
	if h.runner != nil {
		return h.runner
	}
	var run, project []hooks.Hook
	for _, hk := range h.all {
		if hk.Project {
			project = append(project, hk)
		} else {
			run = append(run, hk)
		}
	}
	if len(project) > 0 && h.trusted != nil {
		// Not answered: none of those hooks run this session, the next
		// start asks again.
		trusted, _ := h.trusted(ctx, project)
		run = append(run, trusted...)
	}
	r := &hooks.Runner{Hooks: run, Dir: h.dir, Env: h.env, Transcript: h.transcript, Judge: h.judge, Confine: h.confine}
	if ctx.Err() == nil {
		h.runner = r
		if h.unconfined != nil {
			if note := h.unconfined(run); note != "" {
				h.warn("hooks: " + note)
			}
		}
	}
	return r
}

// run runs event's hooks matching value with in, and shows what they say
// to the person.
func (h *hookSet) run(ctx context.Context, value string, in hooks.Input) []hooks.Result {
	r := h.active(ctx)
	if len(r.Selected(in.HookEventName, value)) == 0 {
		return nil
	}
	if in.PermissionMode == "" && h.mode != nil {
		in.PermissionMode = h.mode()
	}
	ctx, end := h.tel.Hook(ctx, in.HookEventName, len(r.Selected(in.HookEventName, value)))
	results := r.Run(ctx, value, in)
	failed := 0
	for _, res := range results {
		if res.Failure != "" || (res.Exit != 0 && res.Exit != 2) { // exit 2 is Claude Code's "block", an answer
			failed++
		}
	}
	end(failed)
	return results
}

// summarize runs event's hooks and sums them up; their notes go to warn.
func (h *hookSet) summarize(ctx context.Context, value string, in hooks.Input) hooks.Outcome {
	o := hooks.Summarize(in.HookEventName, h.run(ctx, value, in))
	h.show(o.Notes)
	switch in.HookEventName {
	case hooks.PreCompact, hooks.PostCompact, hooks.SessionStart, hooks.SessionEnd, hooks.Notification, hooks.SubagentStart:
		// Nothing to block: exit 2's stderr is for the person (Claude
		// Code's "shows stderr to user only").
		if o.Blocked {
			h.warn("hook: " + o.Reason)
		}
	}
	return o
}

func (h *hookSet) show(notes []string) {
	for _, n := range notes {
		h.warn("hook: " + n)
	}
}

// has reports whether any hook is attached to event.
func (h *hookSet) has(event string) bool {
	if h == nil {
		return false
	}
	for _, hk := range h.all {
		if hk.Event == event {
			return true
		}
	}
	return false
}

// any reports whether the session has a hook of any event (nil: none).
func (h *hookSet) any() bool { return h != nil && len(h.all) > 0 }

// aroundCalls reports whether hooks run around tool calls (PreToolUse,
// PostToolUse, PostToolUseFailure, PermissionRequest): commands that may
// change files, whatever the call does.
func (h *hookSet) aroundCalls() bool {
	return h.has(hooks.PreToolUse) || h.has(hooks.PostToolUse) || h.has(hooks.PostToolUseFailure) || h.has(hooks.PermissionRequest)
}

// gateFunc is the loop's gate: PreToolUse (nil without such hooks).
func (h *hookSet) gateFunc() loop.GateFunc {
	if !h.has(hooks.PreToolUse) {
		return nil
	}
	return h.gate
}

// gate runs PreToolUse's hooks on a call: exit 2 or deny denies it with
// the hook's words as the result, ask asks the person, allow needs no
// question, updatedInput replaces the arguments. A hook that gave no
// answer (could not start, timed out) never lets the call pass silently:
// headless it is denied, in the interface the person is asked.
func (h *hookSet) gate(ctx context.Context, c loop.GateCall) loop.GateDecision {
	in := hooks.Input{SessionID: c.Session, HookEventName: hooks.PreToolUse, ToolName: tools.ClaudeName(c.Call.Name),
		AgentToolName: c.Call.Name, ToolInput: claudeInput(c.Call.Arguments, h.dir), ToolUseID: c.Call.ID}
	d := hooks.DecideTool(h.run(ctx, c.Call.Name, in))
	h.show(d.Notes)
	out := loop.GateDecision{Reason: d.Reason, Why: d.Why}
	switch d.Verdict {
	case hooks.ToolDeny:
		out.Verdict = loop.GateDeny
		out.Reason = "The PreToolUse hook blocked this call: " + d.Reason
		return out
	case hooks.ToolAsk:
		out.Verdict = loop.GateAsk
	case hooks.ToolAllow:
		out.Verdict = loop.GateAllow
	}
	if len(d.Failed) > 0 {
		failed := strings.Join(d.Failed, "; ")
		h.warn("hook: " + failed)
		if h.headless {
			// The model is not shown the hooks' command lines (a token
			// may be written in them); the person was, just above.
			return loop.GateDecision{Verdict: loop.GateDeny, Why: "hook gave no answer",
				Reason: "The call was not run: a PreToolUse hook that checks it gave no answer (it could not start, was killed or timed out; the user was shown which). Tell the user."}
		}
		out.Verdict, out.Why = loop.GateAsk, "hook gave no answer: "+failed
	}
	if d.UpdatedInput != nil {
		out.Args = agentInput(d.UpdatedInput, c.Call.Arguments)
	}
	return out
}

// afterCallFunc is the loop's AfterCall: PostToolUse and
// PostToolUseFailure (nil without such hooks).
func (h *hookSet) afterCallFunc() loop.AfterCallFunc {
	if !h.has(hooks.PostToolUse) && !h.has(hooks.PostToolUseFailure) {
		return nil
	}
	return h.afterCall
}

// afterCall runs the hooks of a call that ran: PostToolUse's when its
// result is not an error, PostToolUseFailure's when it is (as Claude
// Code). A block (exit 2, decision block) and additionalContext reach the
// model after the result.
func (h *hookSet) afterCall(ctx context.Context, c loop.AfterCall) tools.Result {
	in := hooks.Input{SessionID: c.Session, HookEventName: hooks.PostToolUse, ToolName: tools.ClaudeName(c.Call.Name),
		AgentToolName: c.Call.Name, ToolInput: claudeInput(c.Call.Arguments, h.dir), ToolUseID: c.Call.ID,
		ToolResponse: map[string]any{"content": c.Result.Content, "is_error": c.Result.IsError}}
	if c.Result.IsError {
		interrupted := ctx.Err() != nil
		in.HookEventName, in.ToolResponse, in.Error, in.IsInterrupt = hooks.PostToolUseFailure, nil, c.Result.Content, &interrupted
	}
	o := h.summarize(ctx, c.Call.Name, in)
	res := c.Result
	if o.Blocked {
		res.Content += "\n\n" + in.HookEventName + " hook: " + o.Reason
	}
	for _, extra := range o.Context {
		res.Content += "\n\n" + in.HookEventName + " hook context: " + extra
	}
	return res
}

// permission runs PermissionRequest's hooks on a question about a call
// before a person sees it: their allow or deny answers it ("" behavior:
// the person is asked).
func (h *hookSet) permission(ctx context.Context, q Question) hooks.PermissionVerdict {
	c := q.Req.Call
	in := hooks.Input{SessionID: q.Req.Session, HookEventName: hooks.PermissionRequest, ToolName: tools.ClaudeName(c.Name),
		AgentToolName: c.Name, ToolInput: claudeInput(c.Arguments, h.dir), ToolUseID: c.ID}
	v := hooks.DecidePermission(h.run(ctx, c.Name, in))
	h.show(v.Notes)
	return v
}

// subagentStart runs SubagentStart's hooks for a child of session (the
// task call that starts it, its agent's name) and returns the context
// they give it.
func (h *hookSet) subagentStart(ctx context.Context, session, callID, agentType string) []string {
	if !h.has(hooks.SubagentStart) {
		return nil
	}
	o := h.summarize(ctx, agentType, hooks.Input{SessionID: session, HookEventName: hooks.SubagentStart, AgentID: callID, AgentType: agentType})
	return o.Context
}

// afterCompactFunc is the loop's AfterCompact: PostCompact (nil without
// such hooks).
func (h *hookSet) afterCompactFunc() func(context.Context, loop.CompactEnd) {
	if !h.has(hooks.PostCompact) {
		return nil
	}
	return func(ctx context.Context, c loop.CompactEnd) {
		trigger := "manual"
		if c.Auto {
			trigger = "auto"
		}
		h.summarize(ctx, trigger, hooks.Input{SessionID: c.Session, HookEventName: hooks.PostCompact, Trigger: trigger})
	}
}

// stopFunc is the loop's BeforeStop for event (Stop, or SubagentStop for
// a child's loop); nil without such hooks.
func (h *hookSet) stopFunc(event string) loop.StopCheckFunc {
	if !h.has(event) {
		return nil
	}
	return func(ctx context.Context, s loop.StopCheck) string {
		active := s.Active
		o := h.summarize(ctx, "", hooks.Input{SessionID: s.Session, HookEventName: event, StopHookActive: &active})
		if o.Blocked && !o.Stop {
			return o.Reason
		}
		return ""
	}
}

// compactFunc is the loop's BeforeCompact: PreCompact (nil without such
// hooks).
func (h *hookSet) compactFunc() func(context.Context, loop.CompactStart) {
	if !h.has(hooks.PreCompact) {
		return nil
	}
	return func(ctx context.Context, c loop.CompactStart) {
		trigger := "manual"
		if c.Auto {
			trigger = "auto"
		}
		instructions := c.Instructions
		h.summarize(ctx, trigger, hooks.Input{SessionID: c.Session, HookEventName: hooks.PreCompact, Trigger: trigger, CustomInstructions: &instructions})
	}
}

// sessionStart runs SessionStart's hooks for session in the background
// (source: startup or resume); their context goes with the next prompt,
// which waits for them.
func (h *hookSet) sessionStart(ctx context.Context, session, source string) {
	if !h.has(hooks.SessionStart) {
		return
	}
	done := make(chan struct{})
	h.mu.Lock()
	h.started = done
	h.mu.Unlock()
	go func() {
		defer close(done)
		o := h.summarize(ctx, source, hooks.Input{SessionID: session, HookEventName: hooks.SessionStart, Source: source})
		h.mu.Lock()
		h.startCtx = append(h.startCtx, o.Context...)
		h.mu.Unlock()
	}()
}

// sessionEnd runs SessionEnd's hooks for session, waiting for them, once
// SessionStart's have finished.
func (h *hookSet) sessionEnd(ctx context.Context, session, reason string) {
	// SessionStart's hooks finish first (each is bounded by its timeout):
	// a session closed before its first prompt leaves none running, and
	// its SessionEnd never overtakes its SessionStart.
	h.mu.Lock()
	started := h.started
	h.mu.Unlock()
	<-started
	if !h.has(hooks.SessionEnd) {
		return
	}
	h.summarize(ctx, "", hooks.Input{SessionID: session, HookEventName: hooks.SessionEnd, Reason: reason})
}

// notify runs Notification's hooks whose matcher selects kind (one of
// hooks.NotifyPermission, NotifyIdle) with message, in
// the background.
func (h *hookSet) notify(ctx context.Context, session, kind, message string) {
	if !h.has(hooks.Notification) {
		return
	}
	go h.summarize(context.WithoutCancel(ctx), kind, hooks.Input{SessionID: session, HookEventName: hooks.Notification,
		Message: message, NotificationType: kind})
}

// submit runs UserPromptSubmit's hooks on a prompt (the text a person
// typed) after SessionStart's finished. It returns why the prompt is
// blocked ("" when it is not), and the context the hooks (and
// SessionStart's) add to the message the model gets (withContext adds
// it).
func (h *hookSet) submit(ctx context.Context, session, typed string) (extra []string, blocked string) {
	if h == nil {
		return nil, ""
	}
	h.mu.Lock()
	started := h.started
	h.mu.Unlock()
	select {
	case <-started:
	case <-ctx.Done():
		return nil, "cancelled"
	}
	h.mu.Lock()
	extra = h.startCtx
	h.startCtx = nil
	h.mu.Unlock()
	if h.has(hooks.UserPromptSubmit) {
		loop.WaitToolGate(ctx) // the prompt's checkpoint comes before what the hooks change
		o := h.summarize(ctx, "", hooks.Input{SessionID: session, HookEventName: hooks.UserPromptSubmit, Prompt: typed})
		if o.Blocked || o.Stop {
			return nil, "The prompt was blocked by a UserPromptSubmit hook: " + strings.TrimSpace(o.Reason+" "+o.StopReason)
		}
		extra = append(extra, o.Context...)
	}
	return extra, ""
}

// withContext adds the hooks' context to msg, in a part of its own.
func withContext(msg providers.Message, extra []string) providers.Message {
	if len(extra) == 0 {
		return msg
	}
	parts := append([]providers.Part(nil), msg.Parts...)
	parts = append(parts, providers.Text{Text: "\n\n<hook-context>\n" + strings.Join(extra, "\n") + "\n</hook-context>"})
	msg.Parts = parts
	return msg
}

// claudeInput is a call's arguments as a hook gets them: as the model
// wrote them, with file_path, the absolute path, beside a path argument
// (Claude Code's file tools take file_path).
func claudeInput(args, dir string) json.RawMessage {
	var m map[string]any
	if json.Unmarshal([]byte(args), &m) != nil {
		return json.RawMessage(args)
	}
	if p, ok := m["path"].(string); ok {
		if _, has := m["file_path"]; !has {
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, p)
			}
			m["file_path"] = p
		}
	}
	out, err := json.Marshal(m)
	if err != nil {
		return json.RawMessage(args)
	}
	return out
}

// agentInput is a hook's updatedInput as the tool's arguments: a
// file_path (Claude Code's name) becomes path when the call had a path.
func agentInput(updated json.RawMessage, original string) json.RawMessage {
	var m, orig map[string]any
	if json.Unmarshal(updated, &m) != nil || json.Unmarshal([]byte(original), &orig) != nil {
		return updated
	}
	if fp, ok := m["file_path"]; ok {
		if _, had := orig["path"]; had {
			m["path"] = fp
		}
		if _, had := orig["file_path"]; !had {
			delete(m, "file_path")
		}
	}
	out, err := json.Marshal(m)
	if err != nil {
		return updated
	}
	return out
}
