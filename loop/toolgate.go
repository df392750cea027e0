package loop

import (
	"context"
	"slices"

	"github.com/agent-dev/agent/tools"
)

type toolGateKey struct{}

// toolGate is a turn's tool gate: wait, and which calls must wait for it.
type toolGate struct {
	wait  func(context.Context)
	needs func(tools.Definition) bool // nil: every call
}

// WithToolGate returns ctx carrying wait: a turn run on it (Loop.Run) calls
// wait before its first tool call, its PreToolUse hooks and approval
// included, and runs none until wait returns. A service that must see the
// files as the prompt found them (the checkpoint of the prompt) does its
// work while the first request is in flight and holds the tools back only
// if it has not finished when the model answers. wait gets the turn's
// context and must return promptly once it is done. A turn run on a
// context without a gate, or whose gate has been passed, waits for nothing;
// wait may be called more than once.
func WithToolGate(ctx context.Context, wait func(context.Context)) context.Context {
	return WithToolGateFor(ctx, wait, nil)
}

// WithToolGateFor is WithToolGate for the calls needs reports true of
// (nil: every call): a step whose calls all resolve to tools it reports
// false of runs without waiting, and the gate holds back the first step
// with one it reports true of. A call that fails to resolve runs nothing
// (nor any hook) and needs no gate.
func WithToolGateFor(ctx context.Context, wait func(context.Context), needs func(tools.Definition) bool) context.Context {
	return context.WithValue(ctx, toolGateKey{}, toolGate{wait, needs})
}

// WaitToolGate waits for the tool gate ctx carries (WithToolGate), if
// any, and returns at once when there is none or it was passed. What runs
// before a turn's tools and may change files (a UserPromptSubmit hook, a
// custom command's snippets) calls it, so that the prompt's checkpoint is
// taken first and their changes belong to the turn.
func WaitToolGate(ctx context.Context) {
	if g, ok := ctx.Value(toolGateKey{}).(toolGate); ok && g.wait != nil {
		g.wait(ctx)
	}
}

// passToolGate waits, once per turn, for the tool gate of the turn's
// context, before the first step with a call that needs it.
func (t *turn) passToolGate(step []prepared) {
	if t.gatePassed {
		return
	}
	g, ok := t.ctx.Value(toolGateKey{}).(toolGate)
	if !ok || g.wait == nil {
		t.gatePassed = true
		return
	}
	if g.needs != nil && !slices.ContainsFunc(step, func(p prepared) bool { return p.fail == "" && g.needs(p.tool.Definition()) }) {
		return
	}
	t.gatePassed = true
	g.wait(t.ctx)
}
