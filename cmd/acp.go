package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/agent-dev/agent/acp"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sessions"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/plan"
	"github.com/agent-dev/agent/turn"
)

// newACPCmd is `agent acp`: an Agent Client Protocol agent on standard
// input and output, for editors.
func newACPCmd(st Streams, getenv func(string) string, o *Options) *cobra.Command {
	c := &cobra.Command{
		Use:   "acp",
		Short: "Serve the Agent Client Protocol on stdin/stdout (for editors: Zed, JetBrains, Neovim)",
		Long: `agent acp speaks the Agent Client Protocol (version 1) on standard input and
output: newline-delimited JSON-RPC 2.0, nothing else on stdout, logs on stderr.
The editor starts it; each session works in the directory the editor names,
with the model, keys and permissions of the configuration and the root
command's flags (--model, --provider, --permission-mode, ...).`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if !c.Flags().Changed("max-retries") {
				o.MaxRetries = -1
			}
			o.NetworkSet = c.Flags().Changed("network")
			o.ThinkingBudgetSet = c.Flags().Changed("thinking-budget")
			return runACP(c.Context(), o, st, getenv)
		},
	}
	f := c.Flags()
	f.StringVar(&o.Model, "model", "", "model name (env AGENT_MODEL)")
	f.StringVar(&o.BaseURL, "base-url", "", "API base URL")
	f.StringVar(&o.Provider, "provider", "", "wire protocol of the model server: openai or anthropic")
	f.StringVar(&o.Profile, "profile", "", "provider profile of the config file (env AGENT_PROFILE)")
	f.StringVar(&o.ConfigPath, "config", "", "config file (default $XDG_CONFIG_HOME/agent/config.toml)")
	f.IntVar(&o.MaxSteps, "max-steps", 0, "most model requests in one turn (default 25)")
	f.StringVar(&o.Tools, "tools", "", "how tools are offered: pick or all")
	f.StringVar(&o.PermissionMode, "permission-mode", "", "the sessions' first mode: ask (the default), auto or plan")
	f.BoolVar(&o.AllowBash, "allow-bash", false, "run bash commands without asking (still in the sandbox)")
	f.StringVar(&o.Sandbox, "sandbox", "", "what commands may change: workspace-write, read-only, or off")
	f.BoolVar(&o.Network, "network", false, "let commands use the network")
	f.IntVar(&o.MaxRetries, "max-retries", 4, "retries of a request that failed with 429, 5xx or a connection error")
	f.DurationVar(&o.IdleTimeout, "idle-timeout", 0, "fail a stream that sends nothing for this long (default 90s)")
	f.IntVar(&o.ThinkingBudget, "thinking-budget", 0, "tokens the model may think before answering (anthropic)")
	f.BoolVar(&o.TrustProject, "trust-project", false, "run what the project defines that runs code (its hooks, its custom commands' !command snippets) without having trusted it in the interface")
	return c
}

// runACP serves ACP until the client closes standard input.
func runACP(ctx context.Context, o *Options, st Streams, getenv func(string) string) error {
	if o.PermissionMode == modeYolo || o.Yolo {
		return usagef("agent acp takes --permission-mode ask, auto or plan")
	}
	if _, err := permissionMode(o, true); err != nil {
		return err
	}
	// The store opens beside initialize's answer: the first session/new
	// waits for it.
	// The connection to the model's server opens beside them too; every
	// session's requests share it.
	b := &acpBackend{o: o, getenv: getenv, log: st.Err, opened: make(chan struct{}), pool: preconnect(ctx, o, getenv)}
	go func() {
		defer close(b.opened)
		b.store, b.storeErr = openStore(ctx, o, getenv)
	}()
	defer func() {
		<-b.opened
		if b.store != nil {
			b.store.Close()
		}
	}()
	return acp.Serve(ctx, acp.Config{In: st.In, Out: st.Out, Log: st.Err, Backend: b,
		Name: "agent", Version: versionString(), Images: true})
}

// acpBackend opens ACP sessions: each an agent of its own in the session's
// directory (its root, sandbox, tools and MCP servers) on the one store.
type acpBackend struct {
	o      *Options
	getenv func(string) string
	log    io.Writer
	pool   *providers.Pool // the sessions' connections to the model's server
	// opened is closed once the store is open (store) or failed to
	// (storeErr); neither is read before.
	opened   chan struct{}
	store    *sessions.Store
	storeErr error
}

// ready waits for the store.
func (b *acpBackend) ready(ctx context.Context) error {
	select {
	case <-b.opened:
		return b.storeErr
	case <-ctx.Done():
		return ctx.Err()
	}
}

var _ acp.Backend = (*acpBackend)(nil)

// NewSession creates a session in req.Cwd. Its agent is built while the
// store may still be opening (open waits for it after): on a first
// session/new that overlaps the two, which -p does one after the other.
func (b *acpBackend) NewSession(ctx context.Context, req acp.SessionRequest) (acp.Session, error) {
	return b.open(ctx, req, nil)
}

// LoadSession opens stored session id, which must have worked in
// req.Cwd. A session another live process holds is refused (ACP's
// session/load cannot answer with a fork's new id).
func (b *acpBackend) LoadSession(ctx context.Context, id string, req acp.SessionRequest) (acp.Session, error) {
	if err := b.ready(ctx); err != nil {
		return nil, err
	}
	rec, err := b.store.Get(ctx, id)
	if err != nil {
		return nil, sessionError(err)
	}
	if rec.Dir != req.Cwd {
		return nil, fmt.Errorf("session %s worked in %s, not in %s", id, rec.Dir, req.Cwd)
	}
	if err := b.store.Acquire(ctx, rec.ID); err != nil {
		return nil, err
	}
	o := *b.o
	o.Continue, o.Resume = false, rec.ID
	run, err := resumeSession(ctx, b.store, &o, req.Cwd)
	if err != nil {
		b.store.Release(context.WithoutCancel(ctx), rec.ID)
		return nil, err
	}
	return b.open(ctx, req, run)
}

// open builds the agent of a session in req.Cwd and its loop, on run (a
// new session when nil); it waits for the store once the agent is built.
func (b *acpBackend) open(ctx context.Context, req acp.SessionRequest, run *session) (_ acp.Session, err error) {
	if run != nil {
		defer func() {
			if err != nil { // the loaded session's lease goes back
				b.store.Release(context.WithoutCancel(ctx), run.record.ID)
			}
		}()
	}
	fi, err := os.Stat(req.Cwd)
	if err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("cwd %s is not a directory", req.Cwd)
	}
	a, err := newAgent(b.o, req.Cwd, b.getenv, b.pool)
	if err != nil {
		return nil, err
	}
	s := &acpSession{a: a}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	s.closers = append(s.closers, func() { a.root.Close() }, func() { a.sandbox.Close() }, a.children.close, a.closeMCP)
	if err := b.ready(ctx); err != nil {
		return nil, err
	}
	s.store = b.store
	if err := a.addMemory(b.store); err != nil {
		return nil, err
	}
	a.useStore(b.store)
	if err := b.startMCP(ctx, a, req.MCPServers); err != nil {
		return nil, err
	}
	loaded := run != nil
	if run == nil {
		if run, err = newSession(ctx, b.store, a, a.settings.Model, a.systemPrompt(), ""); err != nil {
			return nil, err
		}
	}
	s.run = run
	id := run.record.ID
	a.buffers.connect(req.Client, id, a.dir)
	s.closers = append(s.closers, func() { b.store.Release(context.Background(), id) })
	mode, _ := permissionMode(b.o, true)
	a.plan.set(mode)
	ask := &acpAsker{client: req.Client, session: id, always: map[string]bool{}}
	ap := newApproval(a.policy(mode, b.o.AllowBash), a.plan.get, ask)
	ap.guard = a.protect
	a.plan.useDecider(ask.plan)
	// Hooks and custom commands as headless runs have them: a repository's
	// only when trusted before (or --trust-project); nobody is asked here.
	s.turns = &turn.Runner{Mentions: a.mentions, Sessions: b.store}
	f := &frontEnd{a: a, store: b.store, turns: s.turns}
	warn := func(msg string) { fmt.Fprintln(b.log, "agent: "+msg) }
	trust := a.trustStore(b.o, b.getenv)
	f.useExtensions(true, headlessHookTrust(trust, a.dir, b.o.TrustProject, warn), headlessCommandTrust(trust, a.dir, b.o.TrustProject), warn)
	if s.loop, err = a.newLoop(a.settings.Model, b.store.Recorder(id), ap.approve); err != nil {
		return nil, err
	}
	f.startSession(ctx, id, loaded)
	s.closers = append(s.closers, f.Close) // SessionEnd's hooks
	return s, nil
}

// startMCP starts the configured MCP servers (a project's only when its
// definition was trusted before: nobody is asked here) and the client's,
// and waits for them so their tools are offered from the first prompt.
func (b *acpBackend) startMCP(ctx context.Context, a *agent, servers []acp.MCPServer) error {
	for _, l := range gateProject(a.mcpCfgs, a.mcpProject, a.trustStore(b.o, b.getenv), a.dir, false) {
		fmt.Fprintln(b.log, "agent: "+l)
	}
	if len(servers) > 0 {
		cfgs := map[string]mcpServerConfig{}
		for _, s := range servers {
			sc := mcpServerConfig{Command: s.Command, Args: s.Args, Env: s.Env, URL: s.URL, Headers: s.Headers}
			if s.Type == "sse" {
				sc.Transport = "sse"
			}
			cfgs[s.Name] = sc
		}
		client, err := mcpServers(cfgs, "the client's mcpServers", a.dir, a.settings.ProviderKeyEnvs, b.getenv)
		if err != nil {
			return err
		}
		a.mcpCfgs = append(a.mcpCfgs, client...)
	}
	a.newMCP(func(msg string) { fmt.Fprintln(b.log, "agent: "+msg) })
	// The servers live as long as the session (its Close stops them), not
	// as the request: the ACP library cancels ctx once session/new is
	// answered, which stopped them before the first prompt.
	a.mcp.Start(context.WithoutCancel(ctx))
	a.mcp.Wait(ctx)
	return nil
}

// acpSession is one ACP session: its agent, its conversation and loop.
type acpSession struct {
	a       *agent
	store   *sessions.Store
	run     *session
	loop    *loop.Loop
	turns   *turn.Runner
	mu      sync.Mutex
	closers []func()
}

var _ acp.Session = (*acpSession)(nil)

// ID is the session's id in the store.
func (s *acpSession) ID() string { return s.run.record.ID }

// Turn starts a turn through the turn runner.
func (s *acpSession) Turn(ctx context.Context, p turn.Prompt) <-chan loop.Event {
	return s.turns.Turn(ctx, s.loop, s.run.conv, p)
}

// Mode is the permission mode in force.
func (s *acpSession) Mode() string { return s.a.plan.get() }

// SetMode switches the permission mode: ask, auto or plan.
func (s *acpSession) SetMode(mode string) error {
	switch mode {
	case modeAsk, modeAuto, modePlan:
		s.a.plan.set(mode)
		return nil
	}
	return fmt.Errorf("unknown mode %q: use ask, auto or plan", mode)
}

// History is the conversation the next request carries.
func (s *acpSession) History() []providers.Message { return s.run.conv.Messages() }

// Describe is how a call of tool name is shown.
func (s *acpSession) Describe(name, args string) (tools.Summary, tools.Kind) {
	def, ok := s.a.catalog.Current().Definition(name)
	if !ok {
		return tools.DefaultSummary(args), tools.KindOther
	}
	return def.Summary(args), def.KindOrOther()
}

// maxDiffFile bounds the files whose old and new text an edit's update
// carries.
const maxDiffFile = 1 << 20

// ReadFile reads rel inside the session's root: through the client's
// buffers when it reads files, else from disk.
func (s *acpSession) ReadFile(rel string) (string, bool) {
	if filepath.IsAbs(rel) {
		r, err := filepath.Rel(s.a.dir, rel)
		if err != nil || !filepath.IsLocal(r) {
			return "", false
		}
		rel = r
	}
	if !filepath.IsLocal(rel) {
		return "", false
	}
	if data, ok, err := s.a.buffers.ReadFile(context.Background(), filepath.ToSlash(rel)); ok {
		return string(data), err == nil && len(data) <= maxDiffFile && utf8.Valid(data)
	}
	f, err := s.a.root.Open(rel)
	if err != nil {
		return "", false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxDiffFile+1))
	if err != nil || len(data) > maxDiffFile || !utf8.Valid(data) {
		return "", false
	}
	return string(data), true
}

// Close releases what the session opened, the last opened first.
func (s *acpSession) Close() {
	s.mu.Lock()
	cs := s.closers
	s.closers = nil
	s.mu.Unlock()
	for i := len(cs) - 1; i >= 0; i-- {
		cs[i]()
	}
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

var _ asker = (*acpAsker)(nil)

func (a *acpAsker) ask(ctx context.Context, q question) loop.Decision {
	group := q.def.Name
	if isEdit(q.def) {
		group = "edits"
	}
	if q.risk == "" {
		a.mu.Lock()
		allowed, ok := a.always[group]
		a.mu.Unlock()
		if ok && allowed {
			return loop.Decision{Allow: true, Why: "person: for the session"}
		}
		if ok {
			return loop.Decision{Reason: "The user rejected " + q.def.Name + " for this session.", Why: "person: rejected for the session"}
		}
	}
	sum := q.def.Summary(q.req.Call.Arguments)
	title := q.def.Name + ": " + sum.Title
	if q.risk != "" {
		title += " (" + q.risk + ")"
	}
	ans, err := a.client.RequestPermission(ctx, a.session, acp.Permission{CallID: q.req.Call.ID, Title: title, Kind: q.def.KindOrOther(),
		RawInput: rawArgs(q.req.Call.Arguments), Paths: sum.Paths})
	if err != nil {
		return loop.Decision{Reason: "The approval request failed: " + err.Error(), Why: "denied: " + err.Error()}
	}
	if q.risk == "" && (ans == acp.AllowAlways || ans == acp.RejectAlways) {
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
		return plan.Outcome{Approved: true, Mode: modeAuto}, nil
	case acp.AllowOnce:
		return plan.Outcome{Approved: true, Mode: modeAsk}, nil
	case acp.Cancelled:
		return plan.Outcome{}, errors.New("the plan's question was cancelled")
	}
	return plan.Outcome{Feedback: "The user wants to keep planning."}, nil
}

// Commands are the session's custom slash commands and its MCP servers'
// prompts, which its prompts expand (the turn runner's Submit), for
// available_commands_update.
func (s *acpSession) Commands() []acp.Command {
	var out []acp.Command
	for _, c := range s.a.ext.commands {
		out = append(out, acp.Command{Name: c.Name, Description: c.Description, Hint: c.ArgumentHint})
	}
	for _, c := range s.a.mcpCommands() {
		out = append(out, acp.Command{Name: c.Name, Description: c.Description, Hint: c.ArgumentHint})
	}
	return out
}
