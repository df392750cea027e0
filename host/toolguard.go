package host

import (
	"context"
	"sync"

	"github.com/agent-dev/agent/tools"
)

// gitWatcher notes the working directory's git metadata before a call and
// undoes what the call changed there (sandbox.Sandbox.WatchGit).
type gitWatcher interface {
	WatchGit() func() string
}

// gitGuardedTool is a tool that may write outside the sandbox (an MCP
// server's tool that is not read-only): the git guard looks at the
// repository's config and hooks around each call, as it does around each
// command, and the result says what it undid.
type gitGuardedTool struct {
	tools.Tool
	watch gitWatcher
	mu    *sync.Mutex // one guarded call at a time: the guard compares before and after
}

var _ tools.Tool = gitGuardedTool{}

// guardGit wraps each tool of ts that is not read-only in a
// gitGuardedTool; read-only tools run concurrently and are left as they
// are.
func guardGit(ts []tools.Tool, w gitWatcher) []tools.Tool {
	mu := &sync.Mutex{}
	out := make([]tools.Tool, len(ts))
	for i, t := range ts {
		out[i] = t
		if !t.Definition().ReadOnly {
			out[i] = gitGuardedTool{Tool: t, watch: w, mu: mu}
		}
	}
	return out
}

// Run runs the call between the guard's two looks.
func (g gitGuardedTool) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	after := g.watch.WatchGit()
	res, err := g.Tool.Run(ctx, call)
	if n := after(); n != "" && err == nil {
		res.Content += "\n\n" + n
	}
	return res, err
}
