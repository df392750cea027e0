package host

import (
	"context"
	"errors"
	"strings"

	"github.com/agent-dev/agent/hooks"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
)

// maxJudgeTokens bounds a prompt hook's answer (a short JSON object).
const maxJudgeTokens = 1024

// judge asks the session's model a prompt hook's question, alone (no
// history, no tools), and returns its answer's text. Its tokens count
// toward the session's spend.
func (a *agent) judge(ctx context.Context, prompt string) (string, error) {
	req := providers.Request{Model: a.settings.Model, Messages: []providers.Message{providers.UserText(prompt)},
		MaxOutputTokens: maxJudgeTokens, ThinkingBudget: -1,
		System: "You judge a condition for a hook of a coding agent. Answer only with the JSON object asked for."}
	resp, err := a.provider().Stream(ctx, req, func(providers.StreamEvent) {})
	if resp != nil && a.meter != nil {
		a.meter.Add(a.settings.Model, resp.Usage)
	}
	if err != nil {
		return "", err
	}
	if resp == nil {
		return "", errors.New("no answer")
	}
	return strings.TrimSpace(resp.Message.Text()), nil
}

// permissionHookAsker puts a question to the PermissionRequest hooks
// before the person: their allow or deny answers it; without an answer
// the person (asker) is asked as before. A write of a protected path is
// the person's alone.
type permissionHookAsker struct {
	asker Asker
	hooks *hookSet
}

func (p permissionHookAsker) Ask(ctx context.Context, q Question) loop.Decision {
	if q.Risk != "" {
		return p.asker.Ask(ctx, q)
	}
	v := p.hooks.permission(ctx, q)
	switch v.Behavior {
	case "allow":
		d := loop.Decision{Allow: true, Why: v.Why}
		if v.UpdatedInput != nil {
			d.Args = agentInput(v.UpdatedInput, q.Req.Call.Arguments)
		}
		return d
	case "deny":
		return loop.Decision{Why: v.Why, Reason: "The call was not run: a PermissionRequest hook denied it: " + v.Message}
	}
	return p.asker.Ask(ctx, q)
}

// withPermissionHooks puts the PermissionRequest hooks before ask, when
// there are any.
func (a *agent) withPermissionHooks(ask Asker) Asker {
	if !a.hooks.has(hooks.PermissionRequest) {
		return ask
	}
	return permissionHookAsker{asker: ask, hooks: a.hooks}
}
