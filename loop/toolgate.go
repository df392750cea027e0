package loop

import "context"

type toolGateKey struct{}

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
	return context.WithValue(ctx, toolGateKey{}, wait)
}

// WaitToolGate waits for the tool gate ctx carries (WithToolGate), if
// any, and returns at once when there is none or it was passed. What runs
// before a turn's tools and may change files (a UserPromptSubmit hook, a
// custom command's snippets) calls it, so that the prompt's checkpoint is
// taken first and their changes belong to the turn.
func WaitToolGate(ctx context.Context) {
	if wait, ok := ctx.Value(toolGateKey{}).(func(context.Context)); ok && wait != nil {
		wait(ctx)
	}
}

// passToolGate waits, once per turn, for the tool gate of the turn's
// context.
func (t *turn) passToolGate() {
	if t.gatePassed {
		return
	}
	t.gatePassed = true
	WaitToolGate(t.ctx)
}
