package cmd

import (
	"context"

	"github.com/agent-dev/agent/commands"
	"github.com/agent-dev/agent/sessions"
	"github.com/agent-dev/agent/turn"
)

// frontEnd is what a front-end (the interface, a headless run; an ACP
// server and the SDK's stream-json next) opens for its run: the agent (the
// working directory's root, the sandbox, the tools, the MCP servers), the
// session store, the session -c or -r named, and the turn runner every turn
// starts through. Close releases all of it, in the reverse order of
// opening.
type frontEnd struct {
	a     *agent
	store *sessions.Store
	// resumed is the session --continue or --resume named (possibly a
	// fork of it); nil for a new one.
	resumed *session
	turns   *turn.Runner
	// commands are the custom slash commands the turn runner expands.
	commands *commands.Set
	closers  []func()
}

// openFrontEnd opens the session store and the agent of a run in dir (a
// resumed session's own directory when it worked elsewhere). The caller
// calls Close when the run ends.
func openFrontEnd(ctx context.Context, o *Options, getenv func(string) string, dir string) (*frontEnd, error) {
	a, store, run, err := openSession(ctx, o, getenv, dir)
	if err != nil {
		return nil, err
	}
	a.useStore(store)
	f := &frontEnd{a: a, store: store, resumed: run, turns: &turn.Runner{Mentions: a.mentions, Sessions: store}}
	f.onClose(func() { store.Close() })
	f.onClose(func() { a.root.Close() })
	f.onClose(func() { a.sandbox.Close() }) // removes the commands' temporary directory and cgroup
	f.onClose(a.children.close)             // the subagents' read-only sandbox
	f.onClose(a.closeMCP)
	return f, nil
}

// onClose adds fn to what Close runs; the last added runs first.
func (f *frontEnd) onClose(fn func()) { f.closers = append(f.closers, fn) }

// Close releases what the front-end opened, the last opened first.
func (f *frontEnd) Close() {
	for i := len(f.closers) - 1; i >= 0; i-- {
		f.closers[i]()
	}
	f.closers = nil
}

// release gives session id back at Close, so that the next -c continues
// it at once whatever the process does after.
func (f *frontEnd) release(ctx context.Context, id string) {
	f.onClose(func() { f.store.Release(context.WithoutCancel(ctx), id) })
}
