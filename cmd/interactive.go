package cmd

import (
	"context"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/sessions"
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
	a, store, conv, err := openSession(ctx, o, getenv, dir)
	if err != nil {
		return err
	}
	defer store.Close()
	defer a.root.Close()
	dir = a.dir

	mode, err := permissionMode(o, true)
	if err != nil {
		return err
	}
	approver := tui.NewApprover()
	approve := func(ctx context.Context, req loop.Approval) loop.Decision {
		if judge(mode, o.AllowBash, req.Def.Name) == allow {
			return loop.Decision{Allow: true}
		}
		q := tui.Question{Call: req.Call, Group: req.Def.Name}
		if isEdit(req.Def.Name) {
			q.Group = "edits" // allowing one edit tool for the session allows both
			if req.Preview != nil {
				q.Diff, _ = req.Preview.Meta["diff"].(string)
			}
		}
		return approver.Ask(ctx, q)
	}
	s := a.settings
	ss := &tui.StoreSessions{
		Store: store, Root: a.root, Dir: dir, Model: s.Model, Provider: providerName(s.BaseURL),
		System: a.systemPrompt,
		NewLoop: func(model, system string, rec loop.Store) (*loop.Loop, error) {
			// The session whose loop is built is the one edits go to.
			if r, ok := rec.(*sessions.Recorder); ok {
				a.useSession(r.SessionID(), store.Journal(r.SessionID()))
			}
			return a.newLoop(model, system, rec, approve)
		},
	}
	var sess *tui.Session
	if conv != nil {
		sess, err = ss.Open(ctx, conv.session.ID)
	} else {
		sess, err = ss.New(ctx)
	}
	if err != nil {
		return err
	}
	warning := ""
	if mode == modeYolo {
		warning = "YOLO: commands run without asking"
	}
	err = tui.Run(ctx, tui.Config{
		Model:         s.Model,
		Dir:           dir,
		Session:       sess,
		Sessions:      ss,
		PickSession:   o.Resume == resumePick,
		Tools:         func() ([]string, []string) { return a.registry.Names(), a.toolset.Picked() },
		Approver:      approver,
		Prompt:        o.Prompt,
		Warning:       warning,
		ContextWindow: s.ContextWindow,
	})
	if cerr := ss.Cleanup(context.WithoutCancel(ctx)); err == nil {
		err = cerr
	}
	return err
}
