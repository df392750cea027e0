package cmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/agent-dev/agent/prefs"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/providers/profile"
	"github.com/agent-dev/agent/tools/background"
	"github.com/agent-dev/agent/tui"
)

// runInteractive opens the interface in the terminal on a new session, the
// latest one of the directory (--continue), a named one (--resume ID) or one
// the person picks (--resume without an id). Tools that change the world
// ask the person first, unless --allow-bash or --yolo allowed them.
func runInteractive(ctx context.Context, o *Options, getenv func(string) string) error {
	if err := headlessOnly(o); err != nil {
		return err
	}
	mode, err := host.PermissionMode(&o.Flags, true)
	if err != nil {
		return err
	}
	dir, err := workingDir(o.Dir)
	if err != nil {
		return err
	}
	h, err := openHost(ctx, o, getenv, true)
	if err != nil {
		return err
	}
	defer h.Close()
	approver := tui.NewApprover()
	// The servers' context ends with the interface, before the session
	// closes: a trust question still waiting for an answer then gives up
	// rather than holding the exit.
	mctx, endMCP := context.WithCancel(ctx)
	defer endMCP()
	notices := make(chan string, 64)
	var ended atomic.Bool // the interface is gone: what comes after (a kept worktree) goes to stderr
	warn := func(msg string) {
		if ended.Load() {
			fmt.Fprintln(os.Stderr, "agent: "+msg)
			return
		}
		select {
		case notices <- msg:
		default: // 64 unread notices: the interface is gone or stuck
		}
	}
	fe := host.FrontEnd{Name: "tui", Interactive: true, Mode: mode, AllowBash: o.AllowBash,
		Asker: tuiAsker{approver: approver, host: h}, Plan: tuiPlan{approver}.decide, Warn: warn,
		Trust: host.Trust{Ask: trustAsk(approver)}, Budget: tuiBudget(approver),
		MCP: host.MCPStart{Later: true, Elicit: tuiElicit(approver), ElicitURL: true}}
	sess, err := h.OpenSession(ctx, o.request(dir), fe)
	if err != nil {
		return err
	}
	defer sess.Close()
	defer endMCP()
	s := sess.Settings()
	ss := &tui.StoreSessions{Store: sess.Store(), Dir: sess.Dir(), Model: s.Model, Provider: host.ProviderName(s.BaseURL),
		System: sess.SystemPrompt, NewLoop: sess.NewLoop}
	first, err := ss.Adopt(ctx, sess.ID(), sess.Conversation(), !sess.Resumed())
	if err != nil {
		return err
	}
	cfg := interactiveConfig(o, h, sess, ss, first, approver)
	cfg.AfterFirstFrame, cfg.Notices = func() {
		sess.StartMCP(mctx)
		go sess.AskSettingsTrust(mctx, fe) // a repository's Claude Code settings, from the next session on
	}, notices
	err = tui.Run(ctx, cfg)
	ended.Store(true)
	if cerr := ss.Cleanup(context.WithoutCancel(ctx)); err == nil {
		err = cerr
	}
	return err
}

// interactiveConfig is the interface's configuration, but for the MCP
// servers' start and notices.
func interactiveConfig(o *Options, h *host.Host, sess *host.Session, ss *tui.StoreSessions, first *tui.Session, approver *tui.Approver) tui.Config {
	s := sess.Settings()
	cfg := tui.Config{
		Model: s.Model, Dir: sess.Dir(), Session: first, Sessions: ss, PickSession: o.Resume == resumePick,
		Tools:    sess.Tools,
		Approver: approver,
		MCP: func() string {
			var b strings.Builder
			writeMCPStatus(&b, sess.MCPStatus())
			return strings.TrimRight(b.String(), "\n")
		},
		MCPLogin: sess.MCPLogin,
		Mentions: sess.Mentions(),
		// One request, without retries, as agent doctor lists them.
		Models:            func(ctx context.Context) ([]string, error) { return profile.Models(ctx, s.Settings) },
		Scrollback:        os.Stdout,
		Prompt:            o.Prompt,
		Warning:           sess.StatusWarning(),
		PermissionMode:    sess.Mode(),
		SetPermissionMode: func(m string) { _ = sess.SetMode(m) },
		ContextWindow:     s.ContextWindow,
		Price:             h.Pricer(),
		Definition:        sess.Definition,
		Turns:             sess.Runner(),
		Commands:          tuiCommands(sess.CustomCommands()),
		MoreCommands:      func() []tui.CustomCommand { return tuiCommands(sess.MCPCommands()) },
		Hooks:             sess.HookListing,
		LanguageServers:   sess.LanguageServers,
		Diagnostics:       sess.Diagnostics,
		Worktrees:         func(ctx context.Context) string { return worktreeList(ctx, h, sess.Dir()) },
		Remember:          sess.Remember,
		MemoryFile:        sess.MemoryFile,
		Shells:            tuiShells(sess.Background()),
		Shell:             sess.Shell,
		Rewind:            &tuiRewinder{h: h, sess: sess, ss: ss},
	}
	ui := s.Interface
	cfg.Theme, cfg.Vim = ui.Theme, ui.Vim
	cfg.Notify = tui.NotifyConfig{Method: ui.Notifications, After: ui.NotifyAfter}
	if db, err := h.DB(); err == nil {
		cfg.Prefs = prefs.Open(filepath.Join(filepath.Dir(db), "prefs.json"))
	} else if p := prefs.DefaultPath(os.Getenv); p != "" {
		cfg.Prefs = prefs.Open(p)
	}
	if ok, padding := sess.StatusLine(); ok {
		cfg.StatusLinePadding = padding
		cfg.StatusLine = func(ctx context.Context, st tui.StatusState) (string, error) {
			return sess.RunStatusLine(ctx, host.StatusLineInput{SessionID: st.SessionID, Model: st.Model, CostUSD: st.CostUSD,
				InputTokens: st.InputTokens, OutputTokens: st.OutputTokens, ContextTokens: st.Context, ContextWindow: st.Window,
				LastInput: st.Last.InputTokens, LastOutput: st.Last.OutputTokens, LastCacheRead: st.Last.CachedInputTokens,
				LastCacheWrite: st.Last.CacheWriteTokens, Duration: st.Duration, APIDuration: st.APIDuration,
				LinesAdded: st.LinesAdded, LinesRemoved: st.LinesRemoved})
		}
	}
	return cfg
}

// tuiShells is the session's background processes as the interface reaches
// them: nil when the session keeps none (a nil *background.Manager would
// make an interface value that is not nil).
func tuiShells(m *background.Manager) tui.Shells {
	if m == nil {
		return nil
	}
	return m
}

// worktreeList is /worktrees: the table of the worktrees agent made for
// dir's repository, or why there is none.
func worktreeList(ctx context.Context, h *host.Host, dir string) string {
	m, err := h.Worktrees()
	if err != nil {
		return err.Error()
	}
	repo, err := host.WorktreeRepo(ctx, dir)
	if err != nil {
		return err.Error()
	}
	entries, errs := m.List(ctx, repo)
	out := worktreeTable(entries, repo)
	for _, err := range errs {
		out += err.Error() + "\n"
	}
	return strings.TrimRight(out, "\n")
}

// tuiCommands are commands as the interface offers them.
func tuiCommands(cmds []host.Command) []tui.CustomCommand {
	out := make([]tui.CustomCommand, len(cmds))
	for i, c := range cmds {
		out[i] = tui.CustomCommand{Name: c.Name, ArgumentHint: c.Hint, Description: c.Description}
	}
	return out
}

// headlessOnly refuses, in the interface, the flags that hold only for a
// headless run and the Claude Agent SDK's protocol (--json-schema,
// --export-session): a usage error rather than a flag silently ignored.
func headlessOnly(o *Options) error {
	for _, f := range []struct{ name, value string }{{"--json-schema", o.JSONSchema}, {"--export-session", o.ExportSession}} {
		if f.value != "" {
			return usagef("%s is for a headless run (-p) or the Claude Agent SDK's protocol (--input-format stream-json), not the interface", f.name)
		}
	}
	return nil
}
