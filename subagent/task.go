// Package subagent is the task tool: a call starts a child agent, a real
// nested run of the same loop on a conversation of its own (its own
// session in the store, linked to the parent's session and call), whose
// final answer is the call's result. The child's events reach the parent
// as the call's progress (tools.Progress.Detail is an Event), so the
// interface can show it under its call and stream-json can print it.
// Agent definitions (Markdown with front matter, Claude Code's format)
// give children other prompts, tools and models.
package subagent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/agent-dev/agent/conversation"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/turn"
)

// Name is the task tool's name.
const Name = "task"

// DefaultMaxParallel is how many children run at once when
// Config.MaxParallel is 0.
const DefaultMaxParallel = 4

// DefaultMaxResult caps the child's answer in the call's result (32 KiB).
const DefaultMaxResult = 32 << 10

// IsolationWorktree is the isolation of a child that works in a git
// worktree of its own (the task call's isolation argument, an agent
// definition's isolation: worktree).
const IsolationWorktree = "worktree"

// Spec is what a child is started for.
type Spec struct {
	// ParentSession is the session of the call that starts the child;
	// CallID is that call's id.
	ParentSession, CallID string
	// Description is the call's 3-5 words, how people know the child.
	Description string
	// Agent is the defined agent the child runs as; nil for the default
	// (read-only tools, the session's model).
	Agent *Agent
	// Isolation is IsolationWorktree when the child works in a git
	// worktree of its own (the call asked, or its agent's definition
	// does); "" otherwise.
	Isolation string
}

// Child is a started child: its loop (with loop.Config.Origin naming the
// parent's call), its conversation (recorded as its own session) and what
// to call it.
type Child struct {
	Loop *loop.Loop
	Conv *conversation.Conversation
	// Model is the model it runs on.
	Model string
	// Note, when not "", is a line the call's result carries after the
	// child's answer: what became of its definition's model, say.
	Note string
	// Finish, when not nil, is called once the child's turn has ended (its
	// session's lease given back, its worktree ended); a line it returns
	// ends the call's result (where the child's work is).
	Finish func() string
}

// SpawnFunc builds a child for s: its session, conversation and loop. It
// must not start the turn.
type SpawnFunc func(ctx context.Context, s Spec) (*Child, error)

// Config is what the task tool needs. Spawn is required.
type Config struct {
	Spawn SpawnFunc
	// Runner starts the child's turn (its session titled, marked running
	// and its end recorded); nil runs it without a store.
	Runner *turn.Runner
	// Agents are the defined agents the agent parameter may name.
	Agents []Agent
	// MaxParallel bounds the children running at once; 0 is
	// DefaultMaxParallel.
	MaxParallel int
	// MaxResult caps the answer in bytes; 0 is DefaultMaxResult.
	MaxResult int
}

// Tool is the task tool. It is safe for concurrent use: calls beyond
// MaxParallel wait for a slot (and stop waiting when their context ends).
type Tool struct {
	cfg   Config
	slots chan struct{}
	def   tools.Definition
}

var _ tools.Tool = (*Tool)(nil)

// New returns the task tool of cfg.
func New(cfg Config) *Tool {
	if cfg.MaxParallel <= 0 {
		cfg.MaxParallel = DefaultMaxParallel
	}
	if cfg.MaxResult <= 0 {
		cfg.MaxResult = DefaultMaxResult
	}
	if cfg.Runner == nil {
		cfg.Runner = &turn.Runner{}
	}
	return &Tool{cfg: cfg, slots: make(chan struct{}, cfg.MaxParallel), def: definition(cfg.Agents)}
}

const schema = `{"type":"object","properties":{
"description":{"type":"string","minLength":1,"description":"3-5 words that say what the subagent does, shown to the user"},
"prompt":{"type":"string","minLength":1,"description":"the whole task: the subagent sees nothing else of this conversation"},
"agent":{"type":"string","description":"the name of a defined agent to run as; omit for the default read-only agent"},
"isolation":{"type":"string","enum":["worktree"],"description":"worktree: the subagent works in a git worktree of its own, with tools that change files"}},
"required":["description","prompt"],"additionalProperties":false}`

// definition is the tool's definition, listing the defined agents.
func definition(agents []Agent) tools.Definition {
	var b strings.Builder
	b.WriteString("Start a subagent for one task.\n\n" +
		"A subagent is a fresh agent with its own context that does one task and answers with what it found. Use it for searches and investigations that would fill this conversation with reading it will not need " +
		"(where is X used, how does Y work): only the subagent's answer comes back. Several task calls in one " +
		"response run in parallel. The subagent sees nothing of this conversation: put everything it needs in " +
		"prompt, and say what its answer must contain. By default it has the read-only tools (list_files, read_file, " +
		"grep); a defined agent has the tools its definition names, or all of this conversation's but task. No subagent " +
		"starts subagents itself. Its answer is the call's result; if it stops early (its step limit, " +
		"a cancellation) the result is what it found so far, marked incomplete.\n\n" +
		"With isolation \"worktree\" the subagent works in a git worktree of its own (a new branch agent/NAME from the " +
		"last commit; this tree's uncommitted changes are not in it) and may write files and run commands there without " +
		"touching this tree. Its result ends with the worktree's path, branch and diff stat; an unchanged worktree is " +
		"removed. Nothing is merged: merge the branch only if the user wants it.\n")
	if len(agents) > 0 {
		b.WriteString("\nDefined agents (pass the name as agent):\n")
		for _, a := range agents {
			iso := ""
			if a.Isolation != "" {
				iso = " (isolation: " + a.Isolation + ")"
			}
			fmt.Fprintf(&b, "- %s: %s%s\n", a.Name, tools.OneLine(a.Description), iso)
		}
	}
	return tools.Definition{
		Name: Name, Description: b.String(), Schema: json.RawMessage(schema),
		// The child's own calls are each approved as the parent's would
		// be; the task call itself changes nothing, so several run side by
		// side.
		ReadOnly: true, Effects: tools.ReadsWorkspace, Kind: tools.KindThink,
		Summarize: func(args string) tools.Summary {
			var a struct {
				Description, Agent string
			}
			if json.Unmarshal([]byte(args), &a) != nil || a.Description == "" {
				return tools.DefaultSummary(args)
			}
			title := a.Description
			if a.Agent != "" {
				title += " (" + a.Agent + ")"
			}
			return tools.Summary{Title: tools.OneLine(title), Full: tools.PrettyJSON(args)}
		},
	}
}

// Definition describes the tool.
func (t *Tool) Definition() tools.Definition { return t.def }

// args are the task call's arguments.
type args struct {
	Description string `json:"description"`
	Prompt      string `json:"prompt"`
	Agent       string `json:"agent"`
	Isolation   string `json:"isolation"`
}

// Run starts the child, waits for it and returns its answer. A child
// that stops early (its step limit, a cancellation, a failure) gives what
// it found so far, marked incomplete; Run itself fails only on broken
// arguments, and returns promptly when ctx is cancelled (the child sees
// the same context).
func (t *Tool) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	var a args
	if err := json.Unmarshal(call.Args, &a); err != nil {
		return tools.Errorf("task: %v", err), nil
	}
	spec := Spec{ParentSession: call.Session, CallID: call.ID, Description: tools.OneLine(a.Description), Isolation: a.Isolation}
	if a.Agent != "" {
		def, ok := t.agent(a.Agent)
		if !ok {
			return tools.Errorf("task: no agent named %q; %s", a.Agent, t.known()), nil
		}
		spec.Agent = &def
		if spec.Isolation == "" {
			spec.Isolation = def.Isolation
		}
	}
	select {
	case t.slots <- struct{}{}:
		defer func() { <-t.slots }()
	case <-ctx.Done():
		return tools.Result{Content: "cancelled by the user before the subagent started", IsError: true}, nil
	}
	child, err := t.cfg.Spawn(ctx, spec)
	if err != nil {
		return tools.Errorf("task: starting the subagent: %v", err), nil
	}
	w := watch{spec: spec, session: child.Conv.SessionID(), call: call, start: time.Now(), model: child.Model}
	w.report(loop.ChildEvent{Start: true, Model: child.Model})
	for ev := range t.cfg.Runner.Turn(ctx, child.Loop, child.Conv, turn.Text(a.Prompt)) {
		w.see(ev)
	}
	res := w.result(t.cfg.MaxResult)
	if child.Note != "" {
		res.Content += "\n\n" + child.Note
	}
	if child.Finish != nil {
		if line := child.Finish(); line != "" {
			res.Content += "\n\n" + line
		}
	}
	return res, nil
}

// agent finds a defined agent by its name as written, else in another
// case.
func (t *Tool) agent(name string) (Agent, bool) {
	for _, a := range t.cfg.Agents {
		if a.Name == name {
			return a, true
		}
	}
	for _, a := range t.cfg.Agents {
		if strings.EqualFold(a.Name, strings.TrimSpace(name)) {
			return a, true
		}
	}
	return Agent{}, false
}

// known says which agents there are.
func (t *Tool) known() string {
	if len(t.cfg.Agents) == 0 {
		return "no agents are defined: omit agent"
	}
	names := make([]string, len(t.cfg.Agents))
	for i, a := range t.cfg.Agents {
		names[i] = a.Name
	}
	return "the defined agents are " + strings.Join(names, ", ")
}
