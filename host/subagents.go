package host

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/agent-dev/agent/budget"
	"github.com/agent-dev/agent/conversation"
	"github.com/agent-dev/agent/hooks"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sessions"
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
	hooks   *hookSet
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
// directory's agents and ~/.claude/agents.
func agentDirs(dir string, s Settings) []string {
	dirs := []string{filepath.Join(dir, ".agent", "agents"), filepath.Join(dir, ".claude", "agents")}
	if s.ConfigPath != "" {
		dirs = append(dirs, filepath.Join(filepath.Dir(s.ConfigPath), "agents"))
	}
	if home, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(home, ".claude", "agents"))
	}
	return dirs
}

// newTaskTool returns the task tool of the agent in dir, whose children c
// builds, with the agent definitions' problems, one line each.
func newTaskTool(dir string, s Settings, c *children) (*subagent.Tool, []string) {
	agents, warnings := subagent.Load(agentDirs(dir, s)...)
	agents = append(agents, pluginAgents(c.a.plugins)...)
	return subagent.New(subagent.Config{Spawn: c.spawn, Runner: c.runner, Agents: agents, MaxParallel: s.Subagents.MaxParallel}), warnings
}

// spawn builds a child for spec: its session (a subagent's, linked to the
// parent's), its conversation and its loop, with the tools of its agent
// (the read-only ones by default; never the task tool).
func (c *children) spawn(ctx context.Context, spec subagent.Spec) (_ *subagent.Child, err error) {
	store, approve, h := c.store, c.approve, c.hooks
	a, s := c.a, c.a.settings
	model, system, name, dir := s.Model, a.systemPrompt()+subagentNote, "", a.dir
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
		system = a.systemPromptIn(ic.root, dir) + subagentNote + fmt.Sprintf(worktreeNote, ic.rec.Branch)
		reg, err = ic.registry(c, spec.Agent)
	} else {
		reg, err = c.registry(spec.Agent)
	}
	if err != nil {
		return nil, err
	}
	if ag := spec.Agent; ag != nil {
		name, system = ag.Name, ag.Prompt+"\n\n"+system
		if !ag.InheritsModel() {
			model = ag.Model
		}
		if ag.MaxBudgetUSD > 0 {
			if err := checkPriced(budget.Limits{USD: ag.MaxBudgetUSD}, model, s.Pricer()); err != nil {
				return nil, fmt.Errorf("agent %s's max_budget_usd: %w", ag.Name, err)
			}
		}
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
	prepare := c.prepare(spec.Agent)
	if ic != nil {
		prepare = func() {}
		if slices.Contains(reg.Names(), "bash") {
			prepare = ic.sandbox.Prepare
		}
	}
	l, err := loop.New(loop.Config{
		Provider: &preparingProvider{Provider: a.provider(), prepare: prepare},
		Model:    model,
		Trace:    a.trace,
		Catalog:  picker.New(reg, a.mode, reg.Names()),
		MaxSteps: s.MaxSteps, Approve: approve, Store: lrec,
		Window: cmp.Or(s.ContextWindow, providers.ContextWindow(model)), AutoCompact: s.AutoCompact, ReserveOutput: s.OutputReserve(),
		Origin: loop.Origin{ParentCallID: spec.CallID, Label: spec.Description},
		Gate:   h.gateFunc(), AfterCall: h.afterCallFunc(), BeforeStop: h.stopFunc(hooks.SubagentStop),
		Budget: loopBudget(a.childMeter(spec.Agent)),
	})
	if err != nil {
		release()
		return nil, err
	}
	return &subagent.Child{Loop: l, Conv: conversation.New(system, rec), Model: model, Finish: finish}, nil
}

// prepare is what begins the set-up of the sandbox a child's commands
// run in, at its first tool call: the parent's for a definition that
// names bash, else the children's read-only one (nothing when it has
// none).
func (c *children) prepare(ag *subagent.Agent) func() {
	switch {
	case ag != nil && ag.Tools != nil:
		if slices.Contains(ag.ToolNames(), "bash") {
			return c.a.sandbox.Prepare
		}
	case c.sandbox != nil:
		return c.sandbox.Prepare
	}
	return func() {}
}

// childTools are the tools of a child without a defined agent: the
// read-only file tools, and bash in a read-only sandbox where there is one.
var childTools = []string{"list_files", "read_file", "grep"}

// registry is the toolset of a child: the agent's named built-in tools,
// or the read-only file tools; never the task tool (no chains of
// subagents).
func (c *children) registry(ag *subagent.Agent) (*tools.Registry, error) {
	names := childTools
	var ts []tools.Tool
	if ag != nil && ag.Tools != nil {
		names = ag.ToolNames()
	} else if c.bash != nil {
		ts = append(ts, c.bash) // the read-only one
	}
	for _, t := range c.a.builtins {
		def := t.Definition()
		if def.Name == subagent.Name {
			continue
		}
		if slices.Contains(names, def.Name) {
			ts = append(ts, t)
		}
	}
	if len(ts) == 0 {
		return nil, fmt.Errorf("the agent definition names no tool this agent has (%v)", names)
	}
	return tools.NewRegistry(ts...)
}
