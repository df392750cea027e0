package cmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sessions"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/shell/sandbox"
	"github.com/agent-dev/agent/tui"
)

// runInteractive opens the interface in the terminal on a new session, the
// latest one of the directory (--continue), a named one (--resume ID) or one
// the person picks (--resume without an id). Tools that change the world
// ask the person first, unless --allow-bash or --yolo allowed them.
func runInteractive(ctx context.Context, o *Options, getenv func(string) string) error {
	dir, err := workingDir(o.Dir)
	if err != nil {
		return err
	}
	a, store, run, err := openSession(ctx, o, getenv, dir)
	if err != nil {
		return err
	}
	defer store.Close()
	defer a.root.Close()
	defer a.sandbox.Close() // removes the commands' temporary directory and cgroup
	dir = a.dir
	// MCP servers start in the background: the prompt does not wait for
	// them, their tools join the catalog when ready.
	mode, err := permissionMode(o, true)
	if err != nil {
		return err
	}
	approver := tui.NewApprover()
	if db, err := dbPath(o, getenv); err == nil {
		trust := &trustStore{path: filepath.Join(filepath.Dir(db), "mcp-trust.json")}
		ask := func(ctx context.Context, call providers.ToolCall, question string) (bool, bool) {
			d := approver.Ask(ctx, tui.Question{Call: call, Text: question})
			return d.Allow, d.Why != tui.WhyDismissed
		}
		for i, c := range a.mcpCfgs {
			if a.mcpProject[c.Name] {
				a.mcpCfgs[i].Gate = askTrust(trust, dir, c, ask)
			}
		}
	} else {
		skipProject(a.mcpCfgs, a.mcpProject)
	}
	// Started once the first frame is drawn (AfterFirstFrame below); the
	// manager exists from now on so that /mcp and closing work before. A
	// server's problems (failed, stopped, a tool skipped) reach the
	// conversation once each, as notes.
	notices := make(chan string, 64)
	// The servers' context ends with the interface, before closeMCP: a
	// trust question still waiting for an answer then gives up rather
	// than holding the exit.
	mctx, endMCP := context.WithCancel(ctx)
	a.newMCP(func(msg string) {
		select {
		case notices <- msg:
		default: // 64 unread notices: the interface is gone or stuck
		}
	})
	defer a.closeMCP()
	defer endMCP()
	pol := a.policy(mode, o.AllowBash)
	// Shift+Tab switches the mode between ask and auto while the
	// interface runs; each call is decided in the mode of its moment.
	var live atomic.Pointer[string]
	live.Store(&mode)
	approve := func(ctx context.Context, req loop.Approval) loop.Decision {
		def := withEffects(req.Def)
		// rule decides the call in the mode of the moment; ok is false
		// when a person must be asked. A question waiting when Shift+Tab
		// switches the mode is decided again through it.
		rule := func() (loop.Decision, bool) {
			pol := pol
			pol.mode = *live.Load()
			switch r := pol.decide(def, req.Call.Arguments); r.verdict {
			case allow:
				return loop.Decision{Allow: true, Why: r.why}, true
			case deny:
				return loop.Decision{Reason: r.reason, Why: r.why}, true
			}
			return loop.Decision{}, false
		}
		if d, ok := rule(); ok {
			return d
		}
		q := tui.Question{Call: req.Call, Group: req.Def.Name, Recheck: rule}
		if isEdit(def) {
			q.Group = "edits" // allowing one edit tool for the session allows both
			if req.Preview != nil {
				q.Diff, _ = req.Preview.Meta["diff"].(string)
			}
		}
		d := approver.Ask(ctx, q)
		// A person's yes says nothing of the sandbox (the policy's own
		// yes, after a switch of mode, already does).
		if d.Allow && def.Effects.Has(tools.RunsCommands) && strings.HasPrefix(d.Why, "person") {
			d.Why = pol.confined(d.Why)
		}
		return d
	}
	s := a.settings
	ss := &tui.StoreSessions{
		Store: store, Root: a.root, Dir: dir, Model: s.Model, Provider: providerName(s.BaseURL),
		System: a.systemPrompt,
		NewLoop: func(model string, rec loop.Store) (*loop.Loop, error) {
			// The session whose loop is built is the one edits go to.
			if r, ok := rec.(*sessions.Recorder); ok {
				a.useSession(r.SessionID(), store.Journal(r.SessionID()))
			}
			return a.newLoop(model, rec, approve)
		},
	}
	var sess *tui.Session
	if run != nil {
		sess, err = ss.Open(ctx, run.record.ID)
	} else {
		sess, err = ss.New(ctx)
	}
	if err != nil {
		return err
	}
	notice, watch := a.watchAgentsMD(o, getenv)
	defer watch.finish()
	warning := ""
	switch {
	case mode == modeYolo:
		warning = "YOLO: no sandbox, commands run without asking"
	case !pol.sandbox.Enforced && pol.sandbox.Mode != sandbox.Off:
		warning = "no sandbox here: every command needs approval (agent doctor says why)"
	}
	if notice != "" {
		// First, so that a narrow status line keeps it.
		warning = strings.TrimSuffix(agentsMDShortNotice+" · "+warning, " · ")
	}
	if run != nil && run.notice != "" {
		warning = strings.TrimSuffix(run.notice+" · "+warning, " · ")
	}
	err = tui.Run(ctx, tui.Config{
		Model:       s.Model,
		Dir:         dir,
		Session:     sess,
		Sessions:    ss,
		PickSession: o.Resume == resumePick,
		Tools:       func(picked []string) ([]string, []string) { c := a.catalog.Current(); return c.Names(), c.Full(picked) },
		Approver:    approver,
		MCP: func() string {
			var b strings.Builder
			writeMCPStatus(&b, a.mcp.Status())
			return strings.TrimRight(b.String(), "\n")
		},
		Mentions: a.mentions,
		// One request, without retries, as agent doctor lists them.
		Models:          func(ctx context.Context) ([]string, error) { return newProvider(s, -1).Models(ctx) },
		Scrollback:      os.Stdout,
		AfterFirstFrame: func() { a.mcp.Start(mctx) },
		Notices:         notices,
		Prompt:          o.Prompt,
		Warning:         warning,
		PermissionMode:  mode,
		SetPermissionMode: func(m string) {
			if m == modeAsk || m == modeAuto {
				live.Store(&m)
			}
		},
		ContextWindow: s.ContextWindow,
		Price:         tuiPricer(s),
		Remember:      func(note string) (string, error) { return a.memory.Remember(note, true) },
		MemoryFile:    a.memory.EnsureLongTerm,
	})
	if cerr := ss.Cleanup(context.WithoutCancel(ctx)); err == nil {
		err = cerr
	}
	return err
}
