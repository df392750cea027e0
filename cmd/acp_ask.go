package cmd

import (
	"context"
	"errors"
	"path/filepath"
	"sync"

	"github.com/agent-dev/agent/acp"
	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/fs"
	"github.com/agent-dev/agent/tools/plan"
)

// clientBuffers are the file tools' fs.Buffers of an agent: nothing (the
// disk) until an ACP session whose client declared fs capabilities
// connects them; then the editing tools read and write through the
// client's fs/read_text_file and fs/write_text_file, with paths the tools
// have confined to the working directory.
type clientBuffers struct {
	mu      sync.Mutex
	client  acp.Client
	session string
	dir     string
	read    bool
	write   bool
}

var _ fs.Buffers = (*clientBuffers)(nil)

// connect sends the tools' reads and writes for session to c, as far as c
// declared it takes them.
func (b *clientBuffers) connect(c acp.Client, session, dir string) {
	read, write := c.FileSystem()
	b.mu.Lock()
	defer b.mu.Unlock()
	b.client, b.session, b.dir, b.read, b.write = c, session, dir, read, write
}

func (b *clientBuffers) get() (acp.Client, string, string, bool, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.client, b.session, b.dir, b.read, b.write
}

// ReadFile reads rel through the client when it reads files.
func (b *clientBuffers) ReadFile(ctx context.Context, rel string) ([]byte, bool, error) {
	c, session, dir, read, _ := b.get()
	if c == nil || !read {
		return nil, false, nil
	}
	text, err := c.ReadTextFile(ctx, session, filepath.Join(dir, filepath.FromSlash(rel)))
	return []byte(text), true, err
}

// WriteFile writes rel through the client when it writes files.
func (b *clientBuffers) WriteFile(ctx context.Context, rel string, data []byte) (bool, error) {
	c, session, dir, _, write := b.get()
	if c == nil || !write {
		return false, nil
	}
	return true, c.WriteTextFile(ctx, session, filepath.Join(dir, filepath.FromSlash(rel)), string(data))
}

// acpAsker asks the client's person through session/request_permission.
// "For this session" answers hold for the rest of the session, per tool
// (the two editing tools as one); a protected path's question is never
// remembered.
type acpAsker struct {
	client  acp.Client
	session string
	mu      sync.Mutex
	always  map[string]bool // group -> allowed (true) or rejected (false)
}

var _ host.Asker = (*acpAsker)(nil)

func (a *acpAsker) Ask(ctx context.Context, q host.Question) loop.Decision {
	group := q.Def.Name
	if host.IsEdit(q.Def) {
		group = "edits"
	}
	if q.Risk == "" {
		a.mu.Lock()
		allowed, ok := a.always[group]
		a.mu.Unlock()
		if ok && allowed {
			return loop.Decision{Allow: true, Why: "person: for the session"}
		}
		if ok {
			return loop.Decision{Reason: "The user rejected " + q.Def.Name + " for this session.", Why: "person: rejected for the session"}
		}
	}
	sum := q.Def.Summary(q.Req.Call.Arguments)
	title := q.Def.Name + ": " + sum.Title
	if q.Risk != "" {
		title += " (" + q.Risk + ")"
	}
	ans, err := a.client.RequestPermission(ctx, a.session, acp.Permission{CallID: q.Req.Call.ID, Title: title, Kind: q.Def.KindOrOther(),
		RawInput: rawArgs(q.Req.Call.Arguments), Paths: sum.Paths})
	if err != nil {
		return loop.Decision{Reason: "The approval request failed: " + err.Error(), Why: "denied: " + err.Error()}
	}
	if q.Risk == "" && (ans == acp.AllowAlways || ans == acp.RejectAlways) {
		a.mu.Lock()
		a.always[group] = ans == acp.AllowAlways
		a.mu.Unlock()
	}
	switch ans {
	case acp.AllowOnce:
		return loop.Decision{Allow: true, Why: "person: once"}
	case acp.AllowAlways:
		return loop.Decision{Allow: true, Why: "person: for the session"}
	case acp.Cancelled:
		return loop.Decision{Reason: "The user cancelled the request.", Why: "person: cancelled"}
	}
	return loop.Decision{Reason: "The user rejected this call.", Why: "person: rejected"}
}

// plan asks the client's person about a plan (exit_plan_mode).
func (a *acpAsker) plan(ctx context.Context, callID, text string) (plan.Outcome, error) {
	ans, err := a.client.RequestPermission(ctx, a.session, acp.Permission{CallID: callID, Kind: tools.KindThink, Plan: text})
	if err != nil {
		return plan.Outcome{}, err
	}
	switch ans {
	case acp.AllowAlways:
		return plan.Outcome{Approved: true, Mode: host.ModeAuto}, nil
	case acp.AllowOnce:
		return plan.Outcome{Approved: true, Mode: host.ModeAsk}, nil
	case acp.Cancelled:
		return plan.Outcome{}, errors.New("the plan's question was cancelled")
	}
	return plan.Outcome{Feedback: "The user wants to keep planning."}, nil
}
