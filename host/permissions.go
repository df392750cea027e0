package host

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/mcp"
	"github.com/agent-dev/agent/tools/shell/rules"
	"github.com/agent-dev/agent/tools/shell/sandbox"
)

// Permission modes (--permission-mode).
const (
	// ModeAsk asks before every bash command and every file change that no
	// rule decides (the interface's default). Headless, where nobody can
	// answer, what would be asked is denied.
	ModeAsk = "ask"
	// ModeAuto runs commands inside the sandbox and lets file changes in
	// the working directory proceed, without asking; deny rules still
	// deny. Where no sandbox confines commands, commands are asked about
	// (denied headless). The default of headless runs.
	ModeAuto = "auto"
	// ModeYolo runs everything without a sandbox and without asking
	// (--yolo).
	ModeYolo = "yolo"
)

// PermissionMode resolves the mode of a run: --yolo, else the flag, else
// the default for the interface (ask) or headless runs (auto).
func PermissionMode(o *Flags, interactive bool) (string, error) {
	switch {
	case o.Yolo:
		return ModeYolo, nil
	case o.PermissionMode == "" && interactive:
		return ModeAsk, nil
	case o.PermissionMode == "":
		return ModeAuto, nil
	}
	switch o.PermissionMode {
	case ModeAsk, ModeAuto, ModeYolo, ModePlan:
		return o.PermissionMode, nil
	}
	return "", usagef("unknown permission mode %q: use ask, auto, plan or yolo", o.PermissionMode)
}

// verdict is what the policy says of a call that changes the world.
type verdict int

const (
	allow verdict = iota
	askPerson
	deny
)

// ruling is the policy's answer for one call: the verdict, who or what
// decided (recorded with the call), and for a denial or a question, the
// reason in words the model and the person read.
type ruling struct {
	verdict verdict
	why     string
	reason  string
	// mustAsk marks a question no gate may answer (a command line that
	// may hide a denied command).
	mustAsk bool
}

// policy decides the calls that change the world: bash commands and file
// changes. Rules come first (deny wins), then the mode and the sandbox.
type policy struct {
	mode      string
	allowBash bool
	rules     *rules.Set
	sandbox   sandbox.Status
	// toolAllow and toolDeny are the rules that name tools rather than
	// commands (mcp__github__*, mcp__github__create_issue), with * as a
	// glob.
	toolAllow, toolDeny []string
	// planSandbox is whether plan mode's read-only commands run in an
	// enforced read-only sandbox (see judgePlanCommand).
	planSandbox bool
	// domains are the rules that name web_fetch's domains.
	domains domainRules
	// asks are the Claude Code settings' ask rules and path-scoped deny
	// rules.
	asks askRules
}

// decide rules on a call of the tool def with its JSON arguments, from the
// tool's effects, never its name. Deny rules hold in every mode, yolo
// included, and for every tool, read-only ones and those a gate allowed
// included: they are the user's own words.
func (p policy) decide(def tools.Definition, arguments string) ruling {
	return p.decideGated(def, arguments, loop.GatePass, "")
}

// decideGated is decide after a gate (a hook) said gate of the call: a
// gate's ask is asked, a gate's allow needs no question; neither
// overrides a deny rule.
func (p policy) decideGated(def tools.Definition, arguments string, gate loop.GateVerdict, gateWhy string) ruling {
	if pat, ok := matchTool(p.toolDeny, def.Name); ok {
		return ruling{verdict: deny, why: fmt.Sprintf("denied by rule %q", pat),
			reason: fmt.Sprintf("%s was not run: the rule %q in the user's config denies it. Do not try to get around the rule; find another way or ask the user.", def.Name, pat)}
	}
	if r, ok := p.asks.judge(def, arguments, p.mode); ok {
		return r
	}
	if def.Name == mcp.ResourceToolName {
		if r, ok := p.judgeResource(arguments); ok {
			return r
		}
	}
	if r, ok := p.judgeHosts(def, arguments, gate, gateWhy); ok {
		return r
	}
	r := p.decideUngated(def, arguments)
	switch {
	case r.verdict == deny || r.mustAsk:
	case gate == loop.GateAsk:
		return ruling{verdict: askPerson, reason: gateWhy}
	case gate == loop.GateAllow && r.verdict == askPerson:
		return ruling{verdict: allow, why: p.confinedIf(def, cmp.Or(gateWhy, "allowed before it ran"))}
	}
	return r
}

// decideUngated is the policy's ruling before any gate: read-only tools
// run, commands by the command rules and the sandbox, the rest by the
// mode.
func (p policy) decideUngated(def tools.Definition, arguments string) ruling {
	if p.mode == ModePlan && def.ReadOnly && strings.HasPrefix(def.Name, mcp.Prefix) {
		// An MCP tool is read-only by its server's word (readOnlyHint),
		// which plan mode does not take: a rule allows it, or a person.
		if pat, ok := matchTool(p.toolAllow, def.Name); ok {
			return ruling{verdict: allow, why: fmt.Sprintf("plan mode: rule: allow %q", pat)}
		}
		return ruling{verdict: askPerson, reason: "plan mode: " + def.Name + " is read-only by its MCP server's word only (readOnlyHint), which plan mode does not take"}
	}
	if p.mode == ModePlan && !def.ReadOnly {
		if def.Effects.Has(tools.RunsCommands) && def.Name == "bash" {
			return p.judgePlanCommand(arguments)
		}
		return ruling{verdict: deny, why: "denied: plan mode",
			reason: fmt.Sprintf("%s was not run: plan mode is on, so only read-only tools run. Investigate with them, then call exit_plan_mode with your plan; nothing changes until the user approves it.", def.Name)}
	}
	switch {
	case def.Effects.Has(tools.RunsCommands):
		return p.judgeCommand(arguments)
	case def.ReadOnly:
		return ruling{verdict: allow}
	case p.mode == ModeYolo:
		return ruling{verdict: allow, why: "yolo"}
	}
	if pat, ok := matchTool(p.toolAllow, def.Name); ok {
		return ruling{verdict: allow, why: fmt.Sprintf("rule: allow %q", pat)}
	}
	switch {
	case IsEdit(def):
		return p.judgeEdit(def.Name)
	case def.Effects.Unknown() && p.mode == ModeAuto:
		// The user configured the server that offers the tool.
		return ruling{verdict: allow, why: "auto: tool of a configured MCP server"}
	}
	return ruling{verdict: askPerson}
}

// confinedIf adds the sandbox to why for a tool that runs commands.
func (p policy) confinedIf(def tools.Definition, why string) string {
	if def.Effects.Has(tools.RunsCommands) {
		return p.confined(why)
	}
	return why
}

// matchTool returns the first pattern of pats that matches the tool name.
func matchTool(pats []string, name string) (string, bool) {
	for _, p := range pats {
		if ok, _ := path.Match(p, name); ok {
			return p, true
		}
	}
	return "", false
}

// splitRules separates the permission rules that name tools (they start
// with mcp__) from the command rules.
func splitRules(all []string) (commands, toolRules []string) {
	for _, r := range all {
		if strings.HasPrefix(r, mcp.Prefix) {
			toolRules = append(toolRules, r)
		} else {
			commands = append(commands, r)
		}
	}
	return commands, toolRules
}

func (p policy) judgeEdit(name string) ruling {
	switch {
	case p.sandbox.Mode == sandbox.ReadOnly:
		return ruling{verdict: deny, why: "denied: read-only sandbox",
			reason: fmt.Sprintf("%s is refused: the sandbox is read-only (--sandbox read-only), so no file may change. Tell the user what you would change instead.", name)}
	case p.mode == ModeAuto:
		return ruling{verdict: allow, why: "auto: file change in the working directory"}
	}
	return ruling{verdict: askPerson}
}

func (p policy) judgeCommand(arguments string) ruling {
	var a struct {
		Command string `json:"command"`
	}
	_ = json.Unmarshal([]byte(arguments), &a) // the registry validated them
	res := p.rules.Check(a.Command)
	switch res.Verdict {
	case rules.Deny:
		return ruling{verdict: deny, why: res.Reason,
			reason: fmt.Sprintf("The command was not run: %s (a rule in the user's config). Do not try to get around the rule; find another way or ask the user.", res.Reason)}
	case rules.Allow:
		if !p.sandbox.Enforced && p.sandbox.Mode != sandbox.Off {
			break // no sandbox where one was asked for: every command is asked about
		}
		return ruling{verdict: allow, why: p.confined(res.Reason)}
	}
	if res.Unresolved && p.rules.Denies() {
		// The line may hide a denied command: a person must look, in
		// every mode (headless: denied).
		return ruling{verdict: askPerson, reason: res.Reason + " (and deny rules are configured)", mustAsk: true}
	}
	unavailable := !p.sandbox.Enforced && p.sandbox.Mode != sandbox.Off
	switch {
	case p.mode == ModeYolo:
		return ruling{verdict: allow, why: "yolo"}
	case unavailable:
		// Where no sandbox can be set up, nothing runs unconfined unasked:
		// not by --allow-bash, not by an allow rule, not in auto.
	case p.allowBash:
		return ruling{verdict: allow, why: p.confined("--allow-bash")}
	case p.mode == ModeAuto && p.sandbox.Enforced:
		return ruling{verdict: allow, why: "sandbox: " + p.sandbox.Summary()}
	}
	reason := res.Reason
	if unavailable || p.mode == ModeAuto {
		reason = "no sandbox confines commands here (" + p.sandboxWhy() + ")"
	}
	return ruling{verdict: askPerson, reason: reason}
}

// confined adds the sandbox to an allowing decision's why, when there is
// one.
func (p policy) confined(why string) string {
	if p.sandbox.Enforced {
		return why + "; sandbox: " + p.sandbox.Summary()
	}
	return why + "; unconfined"
}

// sandboxWhy says why commands are not confined.
func (p policy) sandboxWhy() string {
	if p.sandbox.Mode == sandbox.Off {
		return "--sandbox off"
	}
	return p.sandbox.Reason
}

// Refusal is the asker of a run where nobody can be asked, in mode (the
// words its reasons name): what the policy would ask about is denied, with
// a reason the model reads.
func Refusal(mode string) Asker { return headlessAsker{mode: mode} }

// headlessAsker answers for headless runs, where nobody can be asked:
// what the policy would ask about is denied, with a reason the model reads.
type headlessAsker struct{ mode string }

var _ Asker = headlessAsker{}

func (h headlessAsker) Ask(_ context.Context, q Question) loop.Decision {
	why := "denied: nobody to ask (headless)"
	switch {
	case q.Risk != "":
		return protectedDenial(q.Def.Name, q.Rel, q.Risk)
	case IsEdit(q.Def):
		return loop.Decision{Why: why, Reason: fmt.Sprintf("%s is not allowed in this headless run (--permission-mode %s): the user can allow file changes with --permission-mode auto.", q.Def.Name, h.mode)}
	case q.Def.Effects.Has(tools.ReachesNetwork) && len(q.Def.Summary(q.Req.Call.Arguments).Hosts) > 0:
		host := q.Def.Summary(q.Req.Call.Arguments).Hosts[0]
		return loop.Decision{Why: why, Reason: fmt.Sprintf("%s of %s needs approval and nobody can be asked in this headless run. The user can allow the domain with an allow rule in the config's [permissions], such as \"web_fetch(domain:%s)\", or run with --yolo.", q.Def.Name, host, host)}
	case q.Def.Effects.Has(tools.RunsCommands):
		return loop.Decision{Why: why, Reason: fmt.Sprintf("bash needs approval in this headless run and nobody can be asked (%s). The user can allow it with an allow rule in the config, --permission-mode auto (commands run in the sandbox), --allow-bash or --yolo. Use list_files, read_file and grep instead.", q.Reason)}
	}
	return loop.Decision{Why: why, Reason: fmt.Sprintf("%s needs approval and nobody can be asked in this headless run (--permission-mode %s). The user can allow it with --permission-mode auto or an allow rule naming it in the config.", q.Def.Name, h.mode)}
}

// IsEdit reports whether a tool only reads and changes files inside the
// working directory.
func IsEdit(def tools.Definition) bool {
	return def.Effects.Has(tools.WritesWorkspace) && def.Effects&^(tools.ReadsWorkspace|tools.WritesWorkspace) == 0
}
