package hooks

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Describe names a hook in a message: its event, command and source (and
// its plugin, for a plugin's).
func Describe(h Hook) string {
	if h.Plugin != "" {
		return fmt.Sprintf("%s hook `%s` (plugin %s, %s)", h.Event, short(h.Runs()), h.Plugin, h.Source)
	}
	return fmt.Sprintf("%s hook `%s` (%s)", h.Event, short(h.Runs()), h.Source)
}

// short is a command cut to 80 bytes for a message.
func short(cmd string) string {
	if len(cmd) > 80 {
		return cmd[:77] + "..."
	}
	return cmd
}

// ToolVerdict is what PreToolUse's hooks say of a call.
type ToolVerdict int

// The verdicts of PreToolUse's hooks.
const (
	// ToolPass: no hook has an opinion.
	ToolPass ToolVerdict = iota
	// ToolAllow: a hook allows the call without a question.
	ToolAllow
	// ToolAsk: a hook wants the person asked.
	ToolAsk
	// ToolDeny: a hook blocks the call (exit 2, or deny).
	ToolDeny
)

// ToolDecision sums up PreToolUse's hooks for one call.
type ToolDecision struct {
	Verdict ToolVerdict
	// Reason is the model's error result of a denied call (the hook's
	// stderr or reason), or what an ask shows.
	Reason string
	// UpdatedInput, when not nil, replaces the call's arguments.
	UpdatedInput json.RawMessage
	// Failed names the hooks that gave no answer (could not start, timed
	// out), one line each: the caller asks or denies, never passes.
	Failed []string
	// Notes are shown to the person (a hook's error, its systemMessage).
	Notes []string
	// Why says which hook decided, for the record.
	Why string
}

// DecideTool sums up the results of PreToolUse's hooks: the strongest
// verdict wins (deny, then ask, then allow), exit 2 denies with the hook's
// stderr, JSON output decides through hookSpecificOutput.permissionDecision
// (or the older decision approve | block), and the last updatedInput given
// with allow (or without a verdict) replaces the arguments. A plugin's hook
// that gave no answer is a note, as Claude Code treats a failed hook, not
// among Failed: an installed plugin's broken script must not stop every
// call.
func DecideTool(results []Result) ToolDecision {
	var d ToolDecision
	set := func(v ToolVerdict, reason string, h Hook) {
		if v > d.Verdict {
			d.Verdict, d.Reason, d.Why = v, reason, "hook: "+h.Source
		}
	}
	for _, r := range results {
		if r.Failure != "" && r.Hook.Plugin != "" {
			d.Notes = append(d.Notes, Describe(r.Hook)+" "+r.Failure)
			continue
		}
		if r.Failure != "" {
			d.Failed = append(d.Failed, Describe(r.Hook)+" "+r.Failure)
			continue
		}
		d.Notes = append(d.Notes, notes(r)...)
		switch {
		case r.Exit == 2:
			set(ToolDeny, orDefault(strings.TrimSpace(r.Stderr), "blocked by a PreToolUse hook"), r.Hook)
			continue
		case r.Exit != 0 || r.Output == nil:
			continue
		}
		o := r.Output
		reason := orDefault(o.Specific.PermissionDecisionReason, o.Reason)
		if o.Continue != nil && !*o.Continue {
			set(ToolDeny, orDefault(o.StopReason, orDefault(reason, "stopped by a PreToolUse hook")), r.Hook)
			continue
		}
		switch strings.ToLower(orDefault(o.Specific.PermissionDecision, o.Decision)) {
		case "deny", "block":
			set(ToolDeny, orDefault(reason, "denied by a PreToolUse hook"), r.Hook)
		case "ask":
			set(ToolAsk, reason, r.Hook)
		case "allow", "approve":
			set(ToolAllow, reason, r.Hook)
		}
		if len(o.Specific.UpdatedInput) > 0 && string(o.Specific.UpdatedInput) != "null" {
			d.UpdatedInput = o.Specific.UpdatedInput
			if d.Why == "" {
				d.Why = "hook: " + r.Hook.Source
			}
		}
	}
	return d
}

// Outcome sums up the hooks of an event other than PreToolUse.
type Outcome struct {
	// Blocked is true when a hook blocked (exit 2 or decision "block"):
	// UserPromptSubmit drops the prompt, Stop sends the model on,
	// PostToolUse gives Reason to the model. Reason is the hook's stderr
	// or reason.
	Blocked bool
	Reason  string
	// Stop is true when a hook said "continue": false; StopReason says
	// why.
	Stop       bool
	StopReason string
	// Context is what the hooks add to the model's context:
	// additionalContext, and the plain stdout of UserPromptSubmit and
	// SessionStart.
	Context []string
	// Notes are shown to the person: failures, other exit statuses, other
	// events' stdout, systemMessage.
	Notes []string
}

// Summarize sums up the results of event's hooks.
func Summarize(event string, results []Result) Outcome {
	var o Outcome
	for _, r := range results {
		if r.Failure != "" {
			o.Notes = append(o.Notes, Describe(r.Hook)+" "+r.Failure)
			continue
		}
		o.Notes = append(o.Notes, notes(r)...)
		if r.Exit == 2 {
			o.Blocked = true
			o.Reason = joinReason(o.Reason, orDefault(strings.TrimSpace(r.Stderr), "blocked by a "+event+" hook"))
			continue
		}
		if r.Exit != 0 {
			continue
		}
		out := r.Output
		if out == nil {
			if t := strings.TrimSpace(r.Stdout); t != "" {
				if event == UserPromptSubmit || event == SessionStart {
					o.Context = append(o.Context, t)
				} else {
					o.Notes = append(o.Notes, Describe(r.Hook)+": "+t)
				}
			}
			continue
		}
		if out.Continue != nil && !*out.Continue {
			o.Stop, o.StopReason = true, joinReason(o.StopReason, orDefault(out.StopReason, "stopped by a "+event+" hook"))
		}
		if strings.EqualFold(out.Decision, "block") {
			o.Blocked = true
			o.Reason = joinReason(o.Reason, orDefault(out.Reason, "blocked by a "+event+" hook"))
		}
		if c := strings.TrimSpace(out.Specific.AdditionalContext); c != "" {
			o.Context = append(o.Context, c)
		}
	}
	return o
}

// notes are what a finished hook shows the person whatever its event: a
// non-blocking error's stderr, its systemMessage.
func notes(r Result) []string {
	var out []string
	if r.Exit != 0 && r.Exit != 2 {
		msg := fmt.Sprintf("%s failed (exit status %d)", Describe(r.Hook), r.Exit)
		if e := strings.TrimSpace(r.Stderr); e != "" {
			msg += ": " + e
		}
		out = append(out, msg)
	}
	if r.Output != nil && r.Output.SystemMessage != "" {
		out = append(out, r.Output.SystemMessage)
	}
	return out
}

func joinReason(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n" + b
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// PermissionVerdict sums up PermissionRequest's hooks for one question.
type PermissionVerdict struct {
	// Behavior is "allow", "deny", or "" when no hook decided (the person
	// is asked).
	Behavior string
	// Message is a denial's words for the model; UpdatedInput, when not
	// nil, replaces an allowed call's arguments.
	Message      string
	UpdatedInput json.RawMessage
	// Notes are shown to the person; Why says which hook decided.
	Notes []string
	Why   string
}

// DecidePermission sums up the results of PermissionRequest's hooks: a
// deny (exit 2, or hookSpecificOutput.decision.behavior "deny") wins over
// an allow; a hook that gave no answer decides nothing (the person is
// asked, as without hooks).
func DecidePermission(results []Result) PermissionVerdict {
	var v PermissionVerdict
	for _, r := range results {
		if r.Failure != "" {
			v.Notes = append(v.Notes, Describe(r.Hook)+" "+r.Failure)
			continue
		}
		v.Notes = append(v.Notes, notes(r)...)
		switch {
		case r.Exit == 2:
			v.Behavior, v.Why = "deny", "hook: "+r.Hook.Source
			v.Message = joinReason(v.Message, orDefault(strings.TrimSpace(r.Stderr), "denied by a PermissionRequest hook"))
		case r.Exit == 0 && r.Output != nil && r.Output.Specific.Decision != nil:
			d := r.Output.Specific.Decision
			switch strings.ToLower(d.Behavior) {
			case "deny":
				v.Behavior, v.Why = "deny", "hook: "+r.Hook.Source
				v.Message = joinReason(v.Message, orDefault(d.Message, "denied by a PermissionRequest hook"))
			case "allow":
				if v.Behavior == "" {
					v.Behavior, v.Why = "allow", "hook: "+r.Hook.Source
				}
				if v.Behavior == "allow" && d.UpdatedInput != nil {
					v.UpdatedInput = d.UpdatedInput
				}
			}
		}
	}
	if v.Behavior != "allow" {
		v.UpdatedInput = nil
	}
	return v
}
