package cmd

import (
	"context"
	"os"
	"strings"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/mcp/oauth"
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
	f, err := openFrontEnd(ctx, o, getenv, dir)
	if err != nil {
		return err
	}
	defer f.Close()
	// The interface fills the memory's vectors in the background (stopped
	// first at Close); a headless run sends no request but its turn's.
	f.onClose(f.a.memory.StartEmbedding(ctx))
	mode, err := permissionMode(o, true)
	if err != nil {
		return err
	}
	approver := tui.NewApprover()
	// The servers' context ends with the interface, before closeMCP: a
	// trust question still waiting for an answer then gives up rather
	// than holding the exit.
	mctx, endMCP := context.WithCancel(ctx)
	defer endMCP()
	notices := interactiveMCP(o, getenv, f, approver)
	interactiveExtensions(o, getenv, f, approver, notices)
	watchIdle(mctx, f, f.a.settings.IdleNotification)
	// Shift+Tab switches the mode between ask and auto while the
	// interface runs; each call is decided in the mode of its moment.
	f.a.plan.set(mode)
	f.a.plan.useDecider(tuiPlan{approver}.decide)
	pol := f.a.policy(mode, o.AllowBash)
	ap := newApproval(pol, f.a.plan.get, notifyingAsker{tuiAsker{approver: approver, webTrust: f.a.webTrust}, f.a.hooks})
	ap.guard = f.a.protect
	approve := ap.approve
	ss := &tui.StoreSessions{
		Store: f.store, Root: f.a.root, Dir: f.a.dir, Model: f.a.settings.Model, Provider: providerName(f.a.settings.BaseURL),
		System:  f.a.systemPrompt,
		NewLoop: func(model string, rec loop.Store) (*loop.Loop, error) { return f.a.newLoop(model, rec, approve) },
	}
	sess, err := openInteractiveSession(ctx, o, f, ss)
	if err != nil {
		return err
	}
	f.startSession(mctx, sess.ID, f.resumed != nil)
	cfg := interactiveConfig(o, getenv, f, pol, mode, sess, ss, approver)
	cfg.AfterFirstFrame, cfg.Notices = func() { f.a.mcp.Start(mctx) }, notices
	cfg.SetPermissionMode = func(m string) {
		if m == modeAsk || m == modeAuto || m == modePlan {
			f.a.plan.set(m)
		}
	}
	err = tui.Run(ctx, cfg)
	if cerr := ss.Cleanup(context.WithoutCancel(ctx)); err == nil {
		err = cerr
	}
	return err
}

// interactiveMCP builds the MCP manager of the interface: a project's
// servers ask the person before they start (once per repository and
// server). The servers start once the first frame is drawn; the manager
// exists from now on so that /mcp and closing work before. A server's
// problems (failed, stopped, a tool skipped) reach the conversation once
// each, as notes, through the channel it returns.
func interactiveMCP(o *Options, getenv func(string) string, f *frontEnd, approver *tui.Approver) chan string {
	a := f.a
	if trust := a.trustStore(o, getenv); trust != nil {
		ask := func(ctx context.Context, call providers.ToolCall, question string) (bool, bool) {
			d := approver.Ask(ctx, tui.Question{Call: call, Text: question})
			return d.Allow, d.Why != tui.WhyDismissed
		}
		for i, c := range a.mcpCfgs {
			if ps, ok := a.mcpProject[c.Name]; ok {
				a.mcpCfgs[i].Gate = askTrust(trust, a.dir, c.Name, ps, ask)
			}
		}
	} else {
		gateProject(a.mcpCfgs, a.mcpProject, nil, a.dir, false)
	}
	notices := make(chan string, 64)
	warn := func(msg string) {
		select {
		case notices <- msg:
		default: // 64 unread notices: the interface is gone or stuck
		}
	}
	env := browserEnv(a.mcpCfgs, a.envFilter())
	a.elicit = tuiElicit(approver, func(u string) error { return oauth.OpenBrowser(u, os.Getenv, env) }, warn)
	a.elicitURL = true
	a.newMCP(warn)
	return notices
}

// interactiveExtensions sets up the interface's hooks and custom
// commands: a repository's hooks ask the person before they first run
// (once per file that defines them, remembered), and what the hooks say
// reaches the conversation as notes through notices.
func interactiveExtensions(o *Options, getenv func(string) string, f *frontEnd, approver *tui.Approver, notices chan string) {
	warn := func(msg string) {
		select {
		case notices <- msg:
		default: // 64 unread notices: the interface is gone or stuck
		}
	}
	trust := f.a.trustStore(o, getenv)
	if trust == nil {
		f.useExtensions(false, headlessHookTrust(nil, f.a.dir, false, warn), headlessCommandTrust(nil, f.a.dir, false), warn)
		return
	}
	ask := func(ctx context.Context, call providers.ToolCall, question string) (bool, bool) {
		d := approver.Ask(ctx, tui.Question{Call: call, Text: question})
		return d.Allow, d.Why != tui.WhyDismissed
	}
	f.useExtensions(false, askHookTrust(trust, f.a.dir, ask, warn), askCommandTrust(trust, f.a.dir, ask), warn)
}

// openInteractiveSession opens the session the interface starts on: the
// one -c or -r named, or a new one.
func openInteractiveSession(ctx context.Context, o *Options, f *frontEnd, ss *tui.StoreSessions) (*tui.Session, error) {
	if f.resumed != nil {
		return ss.Open(ctx, f.resumed.record.ID)
	}
	return ss.New(ctx)
}

// interactiveConfig is the interface's configuration, but for the MCP
// servers' start and notices and the permission mode's switch.
func interactiveConfig(o *Options, getenv func(string) string, f *frontEnd, pol policy, mode string, sess *tui.Session,
	ss *tui.StoreSessions, approver *tui.Approver) tui.Config {
	a, s := f.a, f.a.settings
	return tui.Config{
		Model: s.Model, Dir: a.dir, Session: sess, Sessions: ss, PickSession: o.Resume == resumePick,
		Tools:    func(picked []string) ([]string, []string) { c := a.catalog.Current(); return c.Names(), c.Full(picked) },
		Approver: approver,
		MCP: func() string {
			var b strings.Builder
			writeMCPStatus(&b, a.mcp.Status())
			return strings.TrimRight(b.String(), "\n")
		},
		MCPLogin: a.mcpLogin,
		Mentions: a.mentions,
		// One request, without retries, as agent doctor lists them.
		Models:         func(ctx context.Context) ([]string, error) { return newProvider(s, -1, nil).Models(ctx) },
		Scrollback:     os.Stdout,
		Prompt:         o.Prompt,
		Warning:        interactiveWarning(o, getenv, f, pol, mode),
		PermissionMode: mode,
		ContextWindow:  s.ContextWindow,
		Price:          tuiPricer(s),
		Definition:     func(name string) (tools.Definition, bool) { return a.catalog.Current().Definition(name) },
		Turns:          f.turns,
		Commands:       customCommands(a.ext.commands),
		MoreCommands:   a.mcpCommands,
		Hooks:          func() string { return hookListing(a, a.trustStore(o, getenv)) },
		Remember:       func(note string) (string, error) { return a.memory.Remember(note, true) },
		MemoryFile:     a.memory.EnsureLongTerm,
	}
}

// interactiveWarning is what the status line warns of: a fork of a session
// in use, a changed AGENTS.md, yolo, no sandbox.
func interactiveWarning(o *Options, getenv func(string) string, f *frontEnd, pol policy, mode string) string {
	notice, watch := f.a.watchAgentsMD(o, getenv)
	f.onClose(watch.finish)
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
	if run := f.resumed; run != nil && run.notice != "" {
		warning = strings.TrimSuffix(run.notice+" · "+warning, " · ")
	}
	return warning
}

// tuiAsker asks the person in the interface: the call's block shows the
// question as a menu.
type tuiAsker struct {
	approver *tui.Approver
	webTrust *trustStore // where "always" answers about domains are kept
}

var _ asker = tuiAsker{}

func (t tuiAsker) ask(ctx context.Context, q question) loop.Decision {
	tq := tui.Question{Call: q.req.Call, Group: q.def.Name, Recheck: q.recheck, Origin: q.req.Origin.Label,
		Summary: q.def.Summary(q.req.Call.Arguments), Commands: q.def.Effects.Has(tools.RunsCommands)}
	if q.risk != "" {
		// One call's question: no answer for the session covers another.
		tq.Group, tq.Warning, tq.Recheck = "protected "+q.req.Call.ID, protectedQuestion(q.rel, q.risk), nil
		tq.Diff, _ = q.req.Preview.Meta[tools.MetaDiff].(string)
		return t.approver.Ask(ctx, tq)
	}
	if hosts := q.def.Summary(q.req.Call.Arguments).Hosts; q.def.Effects.Has(tools.ReachesNetwork) && len(hosts) > 0 {
		return askHosts(ctx, t.approver, t.webTrust, tq, hosts)
	}
	if isEdit(q.def) {
		tq.Group = "edits" // allowing one edit tool for the session allows both
		if q.req.Preview != nil {
			tq.Diff, _ = q.req.Preview.Meta[tools.MetaDiff].(string)
		}
	}
	return t.approver.Ask(ctx, tq)
}
