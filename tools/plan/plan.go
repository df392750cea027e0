// Package plan is plan mode's exit_plan_mode tool: in plan mode the model
// investigates with read-only tools and then calls it with its plan, which
// the person approves (continuing in ask or auto mode) or sends back with
// feedback. Which tools run in plan mode is the permission policy's
// business, not this package's.
package plan

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/agent-dev/agent/tools"
)

// Name is the tool's name.
const Name = "exit_plan_mode"

// Prompt is added to the system prompt while plan mode is on.
const Prompt = "\n\nPlan mode is on: the user wants a plan before anything changes. Only read-only tools run now " +
	"(editing and writing are refused; bash runs read-only commands only, such as ls, cat, grep, find and git status, log, diff and show, " +
	"with no redirection to a file). Investigate the code with them, then call exit_plan_mode with " +
	"your plan in Markdown: the steps, the files each changes, and how you will check the result. Do not change " +
	"anything until the user approves it.\n"

// Outcome is the person's answer to a plan.
type Outcome struct {
	// Approved: carry the plan out, in Mode ("ask" or "auto").
	Approved bool
	Mode     string
	// Feedback, when the plan is not approved, says what to change.
	Feedback string
	// Stop ends the run with the plan as its answer (a headless run,
	// where nobody can approve it).
	Stop bool
}

// Config is what the tool needs.
type Config struct {
	// Active reports whether plan mode is on; nil is never.
	Active func() bool
	// Decide asks about the plan of the call id and waits for the answer;
	// it must return when ctx is cancelled (with ctx's error).
	Decide func(ctx context.Context, callID, plan string) (Outcome, error)
}

// Tool is exit_plan_mode.
type Tool struct{ cfg Config }

// New returns the tool of cfg.
func New(cfg Config) *Tool { return &Tool{cfg: cfg} }

const schema = `{"type":"object","properties":{"plan":{"type":"string","minLength":1,
"description":"the plan in Markdown: the steps, the files each changes, how the result is checked"}},
"required":["plan"],"additionalProperties":false}`

// Definition describes the tool.
func (t *Tool) Definition() tools.Definition {
	return tools.Definition{
		Name: Name,
		Description: "Present your plan for approval (plan mode).\n\n" +
			"Call it once you have investigated enough to say what you will change, with the whole plan in Markdown. " +
			"The user approves it (plan mode ends and you carry it out) or asks for changes. Only in plan mode.",
		Schema: json.RawMessage(schema),
		// It changes nothing: approving the plan changes the mode, which is
		// the person's act.
		ReadOnly: true, Effects: tools.ReadsWorkspace, Kind: tools.KindThink,
		Summarize: func(args string) tools.Summary {
			var a struct{ Plan string }
			if json.Unmarshal([]byte(args), &a) != nil {
				return tools.DefaultSummary(args)
			}
			title, _, _ := strings.Cut(strings.TrimSpace(a.Plan), "\n")
			return tools.Summary{Title: tools.OneLine(strings.TrimLeft(title, "# ")), Full: a.Plan}
		},
	}
}

// Run presents the plan and returns the person's answer for the model.
func (t *Tool) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	var a struct {
		Plan string `json:"plan"`
	}
	if err := json.Unmarshal(call.Args, &a); err != nil {
		return tools.Errorf("exit_plan_mode: %v", err), nil
	}
	if t.cfg.Active == nil || !t.cfg.Active() || t.cfg.Decide == nil {
		return tools.Errorf("plan mode is not on: there is no plan to approve; go on with the task"), nil
	}
	o, err := t.cfg.Decide(ctx, call.ID, a.Plan)
	if err != nil {
		return tools.Result{}, err
	}
	meta := map[string]any{tools.MetaPlan: a.Plan}
	switch {
	case o.Stop:
		meta[tools.MetaStop] = true
		return tools.Result{Content: "The plan was given to the user; the run ends here.", Meta: meta}, nil
	case o.Approved:
		meta[tools.MetaPermissionMode] = o.Mode
		return tools.Result{Content: "The user approved the plan. Plan mode is off (permission mode: " + o.Mode +
			"). Carry the plan out now.", Meta: meta}, nil
	}
	fb := strings.TrimSpace(o.Feedback)
	if fb == "" {
		fb = "(no words)"
	}
	return tools.Result{Content: "The user did not approve the plan yet and said: " + fb +
		"\nPlan mode is still on: investigate further if needed, then call exit_plan_mode with the revised plan.", Meta: meta}, nil
}
