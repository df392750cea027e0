package host

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-dev/agent/budget"
	"github.com/agent-dev/agent/conversation"
	"github.com/agent-dev/agent/hooks"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sessions"
	"github.com/agent-dev/agent/skills"
	"github.com/agent-dev/agent/subagent"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/picker"
	"github.com/agent-dev/agent/tools/protect"
	"github.com/agent-dev/agent/tools/shell/sandbox"
	"github.com/agent-dev/agent/turn"
)

// subagentNote is added to a child's system prompt.
const subagentNote = "\nYou are a subagent: another agent gave you the task in the user's message and sees only your final answer. " +
	"Do the task with your tools, then answer completely and concisely: what you found, with path:line for each place. " +
	"Do not ask questions; nobody can answer them.\n"

// children builds the task tool's children: their sessions in the store,
// linked to the parent's session and call, and their loops, which ask
// the same approval as the parent's (labelled with the child's
// description).
type children struct {
	a      *agent
	runner *turn.Runner

	// bash is the children's bash, confined by sandbox, a read-only one;
	// nil where no read-only sandbox can be enforced (children then have
	// no bash unless a definition names it).
	bash    tools.Tool
	sandbox *sandbox.Sandbox

	store   *sessions.Store
	approve loop.ApproveFunc // the parent's: children ask as it does
	// approveIn is the parent's approval in the mode mode returns at each
	// call, asking ask (a definition's permissionMode); asker the parent's
	// asker. Both are set with approve.
	approveIn func(mode func() string, ask Asker) loop.ApproveFunc
	asker     Asker
	hooks     *hookSet
	// iso is what a child in a worktree of its own needs.
	iso isolation
}

// close releases the children's sandbox.
func (c *children) close() {
	if c.sandbox != nil {
		c.sandbox.Close()
	}
}

// readOnlyBash builds the children's bash: commands that may read
// everything and write nothing, in a read-only sandbox with the parent's
// network setting. Where such a sandbox is not enforced (no namespaces,
// or the sandbox is off), it returns no tool.
func readOnlyBash(yolo bool, s Settings, paths protect.Paths, getenv func(string) string, networkOf *sandbox.Sandbox) (*sandbox.Sandbox, tools.Tool, error) {
	if s.Sandbox.Mode == sandbox.Off || yolo {
		return nil, nil, nil
	}
	ro := s
	ro.Sandbox.Mode = sandbox.ReadOnly
	sb, err := newSandbox(false, ro, paths, getenv, networkOf) // the session's servers answer it
	if err != nil {
		return nil, nil, err
	}
	if !sb.Brief().Enforced {
		sb.Close()
		return nil, nil, nil
	}
	return sb, newBash(s, paths.Dir, sb, nil, false), nil
}

// agentDirs are the directories agent definitions are read from, the
// project's first: .agent/agents, .claude/agents, then the user's config
// directory's agents and ~/.claude/agents (sub-folders included).
func agentDirs(dir string, s Settings) []subagent.Dir {
	dirs := []subagent.Dir{{Path: filepath.Join(dir, ".agent", "agents")}, {Path: filepath.Join(dir, ".claude", "agents")}}
	if s.ConfigPath != "" {
		dirs = append(dirs, subagent.Dir{Path: filepath.Join(filepath.Dir(s.ConfigPath), "agents")})
	}
	if home, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, subagent.Dir{Path: filepath.Join(home, ".claude", "agents")})
	}
	return dirs
}

// loadAgents reads the agent definitions of a run in dir and names their
// problems, one line each: the files' own (subagent.LoadDirs), then per
// definition what of its tools has no counterpart among have (the tools
// a child may get) and the skills it names that are not among sk.
func loadAgents(dir string, s Settings, have []string, sk []skills.Skill) ([]subagent.Agent, []string) {
	agents, warnings := subagent.LoadDirs(agentDirs(dir, s)...)
	for _, ag := range agents {
		_, notes := ag.Toolset(have)
		for _, name := range ag.Skills {
			if _, ok := findSkill(sk, name); !ok {
				notes = append(notes, "skills: "+name+" is no skill here")
			}
		}
		if len(notes) > 0 {
			warnings = append(warnings, fmt.Sprintf("agent definition %s (%s): %s", ag.Name, ag.Path, strings.Join(notes, "; ")))
		}
	}
	return agents, warnings
}

// newTaskTool returns the task tool of the agent, whose children c
// builds, with the agent definitions' problems, one line each.
func (a *agent) newTaskTool(c *children) (*subagent.Tool, []string) {
	agents, warnings := loadAgents(a.dir, a.settings, childToolNames(a.builtins), a.ext.skills)
	agents = append(agents, pluginAgents(a.plugins)...)
	a.agents = agents
	return subagent.New(subagent.Config{Spawn: c.spawn, Runner: c.runner, Agents: agents, MaxParallel: a.settings.Subagents.MaxParallel}), warnings
}

// spawn builds a child for spec: its session (a subagent's, linked to the
// parent's), its conversation and its loop, with the tools of its agent
// (see registry; never the task tool), the approval of its permission
// mode (childApproval) and the model of its definition (childModel).
func (c *children) spawn(ctx context.Context, spec subagent.Spec) (_ *subagent.Child, err error) {
	store, h := c.store, c.hooks
	a, s := c.a, c.a.settings
	model, system, name, dir, note := s.Model, a.systemPrompt()+subagentNote, "", a.dir, ""
	var ic *isolatedChild
	var reg *tools.Registry
	if spec.Isolation == subagent.IsolationWorktree {
		if ic, err = c.isolate(ctx, spec); err != nil {
			return nil, err
		}
		defer func() {
			if err != nil {
				ic.discard(ctx)
			}
		}()
		dir = ic.rec.Path
		system = a.systemPromptIn(dir) + subagentNote + fmt.Sprintf(worktreeNote, ic.rec.Branch)
		reg, err = c.registry(spec.Agent, ic.tools)
	} else {
		reg, err = c.registry(spec.Agent, nil)
	}
	if err != nil {
		return nil, err
	}
	steps := s.MaxSteps
	if ag := spec.Agent; ag != nil {
		name, system = ag.Name, ag.Prompt+"\n\n"+system+c.preloadSkills(ag)
		if isPlan(ag) {
			system += planChildNote
		}
		model, note = c.childModel(ag)
		if ag.MaxTurns > 0 && (steps <= 0 || ag.MaxTurns < steps) {
			steps = ag.MaxTurns
		}
		if ag.MaxBudgetUSD > 0 {
			if err := checkPriced(budget.Limits{USD: ag.MaxBudgetUSD}, model, s.Pricer()); err != nil {
				return nil, fmt.Errorf("agent %s's max_budget_usd: %w", ag.Name, err)
			}
		}
	}
	if extra := h.subagentStart(ctx, spec.ParentSession, spec.CallID, cmp.Or(name, "general-purpose")); len(extra) > 0 {
		system += "\n\n<hook-context>\n" + strings.Join(extra, "\n") + "\n</hook-context>"
	}
	// The session's caps count the child's spend too: a dollar cap needs
	// its model's price, as it needs the session's own (resolveLimits).
	if err := checkPriced(s.Limits, model, s.Pricer()); err != nil {
		return nil, fmt.Errorf("the session's spend cap: %w", err)
	}
	var rec conversation.Recorder
	var lrec loop.Store
	release := func() {}
	if store != nil {
		sess, err := store.Create(ctx, sessions.NewSession{Dir: dir, Provider: ProviderName(s.BaseURL), Model: model,
			SystemPrompt: system, Title: spec.Description, Parent: spec.ParentSession, ParentCallID: spec.CallID, Agent: name})
		if err != nil {
			return nil, err
		}
		id := sess.ID
		r := store.Recorder(id)
		rec, lrec = r, r
		release = func() { store.Release(context.WithoutCancel(ctx), id) }
		if ic != nil {
			if ic.rec, err = ic.m.SetSession(ic.rec, id); err != nil {
				release()
				return nil, err
			}
		}
	}
	finish := func() string {
		release()
		if ic == nil {
			return ""
		}
		return ic.finish(ctx)
	}
	servers := a.lsp
	if dir != a.dir {
		servers = nil // a worktree's files are not the session's servers'
	}
	prepare := c.prepare(spec.Agent, reg, ic)
	fallbacks, err := a.fallbacks(prepare)
	if err != nil {
		release()
		return nil, err
	}
	l, err := loop.New(loop.Config{
		Provider: &preparingProvider{Provider: a.provider(), prepare: prepare, needs: a.needsSandbox}, Fallbacks: fallbacks,
		Model:    model,
		Trace:    a.trace,
		Catalog:  picker.New(reg, a.mode, reg.Names()),
		MaxSteps: steps, Approve: c.childApproval(spec.Agent), Store: lrec,
		Window: cmp.Or(s.ContextWindow, providers.ContextWindow(model)), AutoCompact: s.AutoCompact, ReserveOutput: s.OutputReserve(),
		Origin: loop.Origin{ParentCallID: spec.CallID, Label: spec.Description},
		Gate:   h.gateFunc(), AfterCall: a.instructions.notes(dir, a.lspNotes(servers, h.afterCallFunc())), BeforeStop: h.stopFunc(hooks.SubagentStop),
		Budget: loopBudget(a.childMeter(spec.Agent)),
	})
	if err != nil {
		release()
		return nil, err
	}
	return &subagent.Child{Loop: l, Conv: conversation.New(system, rec), Model: model, Note: note, Finish: finish}, nil
}

// childModel is the model a child of agent ag runs on (its definition's
// model through the run's model aliases, else the session's) and the
// line its task result ends with when the definition's model was not
// used as written.
func (c *children) childModel(ag *subagent.Agent) (model, note string) {
	s := c.a.settings
	use, why := s.ResolveModel(ag.Model)
	if why != "" {
		note = fmt.Sprintf("(agent %s asks for model %s, %s: it ran on the session's model, %s)", ag.Name, ag.Model, why, s.Model)
	}
	return cmp.Or(use, s.Model), note
}

// prepare is what begins the set-up of the sandbox a child's commands run
// in, at its first tool call: its worktree's for an isolated child, the
// children's read-only one for a child whose bash is read-only (the
// default child, a plan mode child), else the session's; nothing when it
// has no bash.
func (c *children) prepare(ag *subagent.Agent, reg *tools.Registry, ic *isolatedChild) func() {
	switch {
	case !slices.Contains(reg.Names(), "bash"):
		return func() {}
	case ic != nil:
		return ic.sandbox.Prepare
	case (ag == nil || isPlan(ag)) && c.sandbox != nil:
		return c.sandbox.Prepare
	}
	return c.a.sandbox.Prepare
}
