package host

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/skills"
	"github.com/agent-dev/agent/subagent"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/plan"
)

// planChildNote is added to the system prompt of a child whose definition
// says permissionMode: plan.
const planChildNote = "\nYou work in plan mode: you may read and run read-only commands; anything that changes files or state is refused. " +
	"Answer with what you found and what you would change.\n"

// childTools are the tools of a child without a defined agent: the
// read-only file tools, and bash in a read-only sandbox where there is one.
var childTools = []string{"list_files", "read_file", "grep"}

// notForChildren are the session's tools no child gets: task (no chains
// of subagents) and exit_plan_mode (a child's plan is its answer; the
// tool would switch the session's mode).
var notForChildren = []string{subagent.Name, plan.Name}

// childToolNames are the names of the tools of ts a child may get.
func childToolNames(ts []tools.Tool) []string {
	var out []string
	for _, t := range ts {
		if n := t.Definition().Name; !slices.Contains(notForChildren, n) {
			out = append(out, n)
		}
	}
	return out
}

// registry is the toolset of a child of agent ag (nil: the default
// child): among the session's tools now (its built-in tools, those in
// bound replacing the ones of the same name, as an isolated child's bound
// to its worktree, and the MCP servers' tools, denied ones wrapped as the
// session's are), never task or exit_plan_mode, the ones its definition
// gives (subagent.Agent.Toolset: without a tools field, all of them). The
// default child gets the read-only file tools and the read-only bash, or
// in a worktree the file tools and bash bound to it. A child in plan mode
// gets the session's bash switched to its read-only sandbox; a child
// whose definition lists skills gets a skill tool of those alone.
func (c *children) registry(ag *subagent.Agent, bound []tools.Tool) (*tools.Registry, error) {
	avail := slices.Clone(bound)
	for _, t := range c.a.builtins {
		n := t.Definition().Name
		if !slices.Contains(notForChildren, n) && !slices.ContainsFunc(bound, func(b tools.Tool) bool { return b.Definition().Name == n }) {
			avail = append(avail, t)
		}
	}
	if c.a.mcp != nil {
		avail = append(avail, denyByRules(guardGit(c.a.mcp.Tools(), c.a.sandbox), c.a.toolDeny)...)
	}
	var names []string
	var ts []tools.Tool
	switch {
	case ag != nil:
		names, _ = ag.Toolset(childToolNames(avail))
	case bound != nil:
		names = dirTools
	default:
		names = childTools
		if c.bash != nil {
			ts = append(ts, c.bash) // the read-only one
		}
	}
	for _, t := range avail {
		if !slices.Contains(names, t.Definition().Name) {
			continue
		}
		if mb, ok := t.(modeBash); ok && ag != nil && isPlan(ag) {
			mb.readOnly, mb.plan = cmpTool(mb.readOnly, c.bash), func() bool { return true }
			t = mb
		}
		if t.Definition().Name == skills.ToolName && ag != nil && ag.Skills != nil {
			t = skills.Tool(c.agentSkills(ag))
		}
		ts = append(ts, t)
	}
	return tools.NewRegistry(ts...)
}

// cmpTool is a, or b when a is nil.
func cmpTool(a, b tools.Tool) tools.Tool {
	if a != nil {
		return a
	}
	return b
}

// isPlan reports whether ag's definition says permissionMode: plan.
func isPlan(ag *subagent.Agent) bool {
	return ag != nil && ag.PermissionMode == subagent.PermissionPlan
}

// strictness orders the permission modes, the strictest first.
var strictness = []string{ModePlan, ModeAsk, ModeAuto, ModeYolo}

// stricter is the stricter of modes a and b ("" counts as neither).
func stricter(a, b string) string {
	ia, ib := slices.Index(strictness, a), slices.Index(strictness, b)
	if ia < 0 || ib >= 0 && ib < ia {
		return b
	}
	return a
}

// childApproval is the approval a child of agent ag asks: the session's,
// in the mode of its definition's permissionMode where that is stricter
// than the session's mode at the call (plan: plan mode; acceptEdits: at
// most auto; default and bypassPermissions: the session's, since a
// definition never widens what the session allows), and for dontAsk with
// what the policy would ask refused rather than asked.
func (c *children) childApproval(ag *subagent.Agent) loop.ApproveFunc {
	if ag == nil || c.approveIn == nil {
		return c.approve
	}
	own, ask := "", c.asker
	switch ag.PermissionMode {
	case subagent.PermissionPlan:
		own = ModePlan
	case subagent.PermissionAcceptEdits:
		own = ModeAuto
	case subagent.PermissionDontAsk:
		ask = Refusal(c.a.plan.get())
	default:
		return c.approve
	}
	return c.approveIn(func() string { return stricter(c.a.plan.get(), own) }, ask)
}

// agentSkills are the skills ag's definition lists, those found.
func (c *children) agentSkills(ag *subagent.Agent) []skills.Skill {
	var out []skills.Skill
	for _, name := range ag.Skills {
		if s, ok := findSkill(c.a.ext.skills, name); ok {
			out = append(out, s)
		}
	}
	return out
}

// preloadSkills is the part of a child's system prompt that holds the
// instructions of the skills its definition lists, as Claude Code starts
// such a subagent with them; "" when it lists none.
func (c *children) preloadSkills(ag *subagent.Agent) string {
	var b strings.Builder
	for _, s := range c.agentSkills(ag) {
		body, err := s.Body()
		if err != nil {
			continue // named when the definitions were read, or since changed
		}
		fmt.Fprintf(&b, "\n<skill name=%q folder=%q>\n%s\n</skill>\n", s.Name, s.Dir, body)
	}
	if b.Len() == 0 {
		return ""
	}
	return "\nThe skills you start with:\n" + b.String()
}

// findSkill is the skill of sk called name: by its name or its command's,
// in any case.
func findSkill(sk []skills.Skill, name string) (skills.Skill, bool) {
	for _, s := range sk {
		if strings.EqualFold(s.Name, name) || strings.EqualFold(s.Command, name) {
			return s, true
		}
	}
	return skills.Skill{}, false
}
