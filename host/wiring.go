package host

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/agent-dev/agent/budget"
	"github.com/agent-dev/agent/commands"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/lsp"
	"github.com/agent-dev/agent/memory"
	"github.com/agent-dev/agent/mention"
	"github.com/agent-dev/agent/plugin"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sessions"
	"github.com/agent-dev/agent/skills"
	"github.com/agent-dev/agent/subagent"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/background"
	"github.com/agent-dev/agent/tools/fs"
	"github.com/agent-dev/agent/tools/mcp"
	"github.com/agent-dev/agent/tools/mcp/oauth"
	"github.com/agent-dev/agent/tools/picker"
	"github.com/agent-dev/agent/tools/protect"
	"github.com/agent-dev/agent/tools/shell"
	"github.com/agent-dev/agent/tools/shell/rules"
	"github.com/agent-dev/agent/tools/shell/sandbox"
	"github.com/agent-dev/agent/tools/todo"
	"github.com/agent-dev/agent/tools/web"
	"github.com/agent-dev/agent/turn"
	"github.com/agent-dev/agent/worktree"
)

// agent is what a session's front-end opened in a directory, built
// complete by newAgent: the working directory and its root, the sandbox,
// the tools and the live catalog, the hooks, the approval, the MCP
// servers (started by the session), the memory.
type agent struct {
	settings Settings
	// trace sees the turns of the session's loops and its subagents'
	// (nil: telemetry is off).
	trace    loop.Tracer
	dir      string
	root     *os.Root
	registry *tools.Registry
	catalog  *picker.Live // the built-in tools and the MCP servers' current ones
	builtins []tools.Tool
	mode     picker.Mode
	mcp      *mcp.Manager
	// rebuild serialises catalog rebuilds, so that the last one published
	// is built from the latest tools.
	rebuild sync.Mutex
	mcpCfgs []mcp.Config
	// awaitNewMCP has the first request wait for the MCP servers never
	// seen before (see settledCatalog): the servers start with the
	// session (not FrontEnd.MCP.Later).
	awaitNewMCP bool
	// mcpWatch are called after the servers changed (Session.OnMCPChange).
	mcpWatchMu sync.Mutex
	mcpWatch   []func()
	// mcpWarn is where the servers' problems go, /mcp login's notices
	// too; oauth keeps their authorizations (nil: none kept).
	mcpWarn func(string)
	oauth   *oauth.Store
	// files is the file tools' state of each session (what its model has
	// read, its undo journal).
	files    *fs.Sessions
	mentions *mention.Mentions // @path completion and attachments
	memory   *memory.Memory    // the project's memory (its service's)
	// services are the per-session services, opened with the agent.
	services []sessionService
	// background is the session's background processes (its service's).
	background *background.Manager
	// lsp is the session's language servers (its service's); nil when
	// none is configured or found.
	lsp *lsp.Manager
	// checkpoints are the session's restore points (nil: off).
	checkpoints *checkpoints
	sandbox     *sandbox.Sandbox
	rules       *rules.Set
	// protect is the file tools' guard of protected paths, which the
	// approval grants single writes through.
	protect *protect.Guard
	// toolAllow and toolDeny are the permission rules naming tools
	// (mcp__...).
	toolAllow, toolDeny []string
	// allowCommands and denyCommands are the command rules rules holds,
	// as written (a custom command's snippets are judged with its
	// allowed-tools added).
	allowCommands, denyCommands []string
	// domains are web_fetch's domain rules; webTrust keeps the domains
	// the person allowed always (nil without a data directory).
	domains  domainRules
	webTrust *trustStore
	// pool holds the connections to the model's server, shared by the
	// session's loop and its subagents.
	pool *providers.Pool
	// children builds the task tool's subagents, agents are the agent
	// definitions it may run; warnings are the problems of the agent
	// definitions and extensions, one line each.
	children *children
	agents   []subagent.Agent
	warnings []string
	// plan is the permission mode in force and plan mode's question.
	plan *planState
	// ext are the hooks, custom commands and skills read at start; hooks
	// runs the hooks (nil: none configured); commands are the custom
	// slash commands the turn runner expands.
	ext extensions
	// claude is what the session takes from Claude Code's settings files.
	claude claudeSettings
	// shells are the person's "!" commands not yet told to the model.
	shells personShells
	// instructions are the project instructions (AGENTS.md, CLAUDE.md,
	// rules) of each directory the session's loops work in.
	instructions *instructionSets
	hooks        *hookSet
	// plugins are the installed plugins enabled in dir: their hooks,
	// commands and skills are in ext, their agents join the task tool's
	// and their MCP servers the session's.
	plugins  []plugin.Plugin
	commands *commands.Set
	// approve is the approval composition every loop of the session
	// asks, its subagents' too.
	approve loop.ApproveFunc
	// fixed, when not nil, answers every request (Config.Provider).
	fixed providers.Provider
	// meter counts the session's spend against its caps, its subagents'
	// included; nil when nothing is capped.
	meter *budget.Meter
	// buffers are the front-end's file buffers (FrontEnd.Files), nil
	// for the disk.
	buffers fs.Buffers
	// answer is the schema the final answers of the session's loops must
	// match (Request.Schema); nil when they are free.
	answer *AnswerSchema
}

// policy is the permission policy of the agent in mode.
func (a *agent) policy(mode string, allowBash bool) policy {
	return policy{mode: mode, allowBash: allowBash || a.claude.allowBash, rules: a.rules, sandbox: a.sandbox.Brief(), toolAllow: a.toolAllow, toolDeny: a.toolDeny,
		planSandbox: a.children.bash != nil, domains: a.domains, asks: a.claude.asks}
}

// storeJournals gives each session's undo journal from the session
// store; for a call outside a session, nothing is recorded. a's
// checkpoints, once it has them, say which sessions need none.
type storeJournals struct {
	store *sessions.Store
	a     *agent
}

// journal returns session id's journal, nil when there is none: none
// either for a session a checkpoint of which was recorded, whose undo
// restores checkpoints (the journal is read only for a session with none,
// Host.Undo). The file tools' changes wait for the turn's checkpoint, so
// the journal is skipped only once there is one: two write transactions
// of each edit.
func (j storeJournals) journal(id string) fs.Journal {
	if id == "" {
		return nil
	}
	if c := j.a.checkpoints; c != nil && c.recorded(id) {
		return nil
	}
	return j.store.Journal(id)
}

// newAgent builds the agent of a session in dir for front-end fe, its
// loops checking final answers against answer (nil: none), complete:
// nothing is set after it returns. Its MCP servers are configured (the
// project's gated by fe.Trust) but not started. Close releases it.
func (h *Host) newAgent(ctx context.Context, dir string, fe FrontEnd, answer *AnswerSchema, store *sessions.Store) (_ *agent, err error) {
	s := h.settings
	a := &agent{settings: s, dir: dir, answer: answer, pool: h.pool, oauth: h.oauth, webTrust: h.trust, plan: &planState{}, mcpWarn: fe.warn, fixed: h.cfg.Provider}
	var closers []func()
	defer func() {
		if err != nil {
			for i := len(closers) - 1; i >= 0; i-- {
				closers[i]()
			}
		}
	}()
	if a.mode, err = picker.ParseMode(s.Tools); err != nil {
		return nil, UsageError{Err: err}
	}
	if a.root, err = os.OpenRoot(dir); err != nil {
		return nil, usagef("working directory: %w", err)
	}
	closers = append(closers, func() { a.root.Close() })
	home, _ := os.UserHomeDir()
	a.claude = loadClaudeSettings(home, dir, settingsTrust(h.trust, dir, fe.Trust.Hooks), s.EnvFilter())
	s.CommandEnv = a.claude.env
	s.Allow = append(slices.Clone(s.Allow), a.claude.allowDomains...)
	s.Deny = append(slices.Clone(s.Deny), a.claude.denyDomains...)
	a.settings = s
	if err := a.compileRules(s, fe.Rules); err != nil {
		return nil, err
	}
	paths := h.protectedPaths(dir)
	paths.Credentials = append(paths.Credentials, a.claude.hidden...)
	paths.DeniedReads = a.claude.asks.denyRead // the file tools hold the patterns on every path they read
	yolo := fe.Mode == ModeYolo
	if a.sandbox, err = newSandbox(yolo, s, paths, h.cfg.Getenv, nil); err != nil {
		return nil, err
	}
	closers = append(closers, func() { a.sandbox.Close() }) // removes the commands' temporary directory and cgroup
	childSb, childBash, err := readOnlyBash(yolo, s, paths, h.cfg.Getenv, a.sandbox)
	if err != nil {
		return nil, err
	}
	a.children = &children{a: a, runner: &turn.Runner{Sessions: store}, bash: childBash, sandbox: childSb, store: store,
		iso: isolation{m: h.worktrees, paths: h.protectedPaths, getenv: h.cfg.Getenv, yolo: yolo}}
	closers = append(closers, a.children.close) // the subagents' read-only sandbox
	a.protect = protect.NewGuard(paths)
	a.files = fs.NewSessions(storeJournals{store, a}.journal)
	a.ext = loadExtensions(dir, s)
	a.instructions = newInstructionSets(paths)
	a.ext.warnings = append(append(a.ext.warnings, a.claude.warnings...), a.instructions.of(dir).Warnings...)
	var notes []string
	a.plugins, notes = h.enabledPlugins(dir)
	a.ext.addPlugins(a.plugins, notes)
	a.plan.set(fe.Mode)
	if a.plan.decide = fe.Plan; a.plan.decide == nil {
		a.plan.decide = headlessPlan
	}
	a.hooks = newHookSet(a, fe, h.trust, store, h.telemetry())
	a.newMeter(fe)
	if a.services, err = openServices(serviceEnv{ctx: ctx, h: h, a: a, fe: fe, store: store}); err != nil {
		return nil, err
	}
	closers = append(closers, func() { closeServices(a.services) })
	if err := a.buildTools(fe, store); err != nil {
		return nil, err
	}
	a.approve = a.approval(fe) // after buildTools, whose fe.Rules.Only adds deny rules
	a.children.approve, a.children.hooks = a.approve, a.hooks
	if err := a.configureMCP(ctx, h, fe); err != nil {
		return nil, err
	}
	closers = append(closers, a.closeMCP)
	a.commands = &commands.Set{Commands: a.ext.commands, Run: a.snippetRunner(a.builtins), RunReadOnly: a.readOnlySnippetRunner(),
		Judge: a.snippetJudge(), Ask: snippetAsk(fe), Trust: h.commandTrust(dir, fe)}
	return a, nil
}

// compileRules takes the [permissions] rules, and those the front-end adds
// (fe), apart: command rules, tool rules (mcp__...) and web_fetch's domain
// rules; a malformed one is a usage error naming the config.
func (a *agent) compileRules(s Settings, fe Rules) error {
	allowRest, allowDomains, err := splitDomainRules(s.Allow)
	if err != nil {
		return usagef("config %s: permissions: %w", s.ConfigPath, err)
	}
	denyRest, denyDomains, err := splitDomainRules(s.Deny)
	if err != nil {
		return usagef("config %s: permissions: %w", s.ConfigPath, err)
	}
	allowCmds, allowTools := splitRules(allowRest)
	denyCmds, denyTools := splitRules(denyRest)
	allowCmds, allowTools = append(allowCmds, a.claude.allow.AllowCommands...), append(allowTools, a.claude.allow.AllowTools...)
	denyCmds, denyTools = append(denyCmds, a.claude.deny.DenyCommands...), append(denyTools, a.claude.deny.DenyTools...)
	a.toolAllow, a.toolDeny = append(allowTools, fe.AllowTools...), append(denyTools, fe.DenyTools...)
	a.allowCommands, a.denyCommands = append(allowCmds, fe.AllowCommands...), append(denyCmds, fe.DenyCommands...)
	if a.rules, err = rules.Compile(a.allowCommands, a.denyCommands); err != nil {
		if len(fe.AllowCommands)+len(fe.DenyCommands) > 0 {
			return usagef("--allowedTools/--disallowedTools: %w", err)
		}
		return usagef("config %s: permissions: %w", s.ConfigPath, err)
	}
	a.domains = domainRules{allow: allowDomains, deny: denyDomains, always: alwaysDomains(a.webTrust)}
	return nil
}

// buildTools builds the built-in tools (the file tools, bash, task,
// todo_write, exit_plan_mode, web_fetch, skill, the memory tools) and the
// catalog; fe.Rules.Only leaves the built-in tools it does not name
// denied.
func (a *agent) buildTools(fe FrontEnd, store *sessions.Store) error {
	s := a.settings
	files := fs.ToolsWith(a.root, fs.Options{Sessions: a.files, Protect: a.protect, ReadDirs: skills.Dirs(a.ext.skills),
		Buffers: fe.Files, ImageLimit: s.ImageLimit()})
	a.buffers = fe.Files
	bash := modeBash{normal: newBash(s, a.dir, a.sandbox, a.background, fe.Interactive), readOnly: a.children.bash, plan: a.plan.active}
	a.builtins = append(files, bash, todo.New(storeTodos{store}), a.plan.tool(), newWebFetch(s))
	if skills.ModelInvocable(a.ext.skills) {
		a.builtins = append(a.builtins, skills.Tool(a.ext.skills))
	}
	for _, svc := range a.services {
		a.builtins = append(a.builtins, svc.tools...)
	}
	task, warnings := a.newTaskTool(a.children) // its definitions' tools are checked against the others
	a.builtins = slices.Insert(a.builtins, len(files)+1, tools.Tool(task))
	a.warnings = append(append(a.warnings, a.ext.warnings...), warnings...)
	reg, err := tools.NewRegistry(a.builtins...)
	if err != nil {
		return fmt.Errorf("building the tools: %w", err)
	}
	a.registry = reg
	if fe.Rules.Only != nil {
		a.toolDeny = append(a.toolDeny, toolsOutside(reg.Names(), fe.Rules.Only)...)
	}
	a.catalog = picker.NewLive(picker.New(reg, a.mode, a.toolGroups()...))
	a.mentions = mention.New(a.root, mention.Files{Read: fs.ReadFile(a.root, a.files), List: fs.ListFiles(a.root), Walk: fs.Files})
	return nil
}

// newBash is the bash tool of a run in dir: commands confined by sb, with
// its temporary directory as TMPDIR, without the provider's keys and the
// secrets the settings' filter removes; with bg (nil: none), commands may
// run in the background, and with detachable (the interface, whose Ctrl+B
// sends a running command there) every command is started supervised.
func newBash(s Settings, dir string, sb *sandbox.Sandbox, bg *background.Manager, detachable bool) tools.Tool {
	extraEnv := slices.Clone(s.CommandEnv)
	if t := sb.TempDir(); t != "" {
		extraEnv = append(extraEnv, "TMPDIR="+t)
	}
	cfg := shell.Config{Dir: dir, StripEnv: s.ProviderKeyEnvs, EnvKeep: s.Sandbox.EnvKeep, EnvRemove: s.Sandbox.EnvRemove,
		ExtraEnv: extraEnv, Build: sb.Build, BuildBackground: sb.BuildBackground, Start: sb.Start, Guard: sb.Guard, GuardBackground: sb.GuardBackground, Confinement: sb.Brief().Confinement()}
	if bg != nil { // a nil *Manager must not become a non-nil interface
		cfg.Background, cfg.Detachable = bg, detachable
	}
	return shell.New(cfg)
}

// newSandbox builds the sandbox of a run in paths.Dir: the mode of the
// settings (off in yolo), the working directory, the temporary directories
// and the configured roots writable; the agent's own files read-only and
// the credentials unreadable, from the run's one list of protected paths.
func newSandbox(yolo bool, s Settings, paths protect.Paths, getenv func(string) string, networkOf *sandbox.Sandbox) (*sandbox.Sandbox, error) {
	mode := s.Sandbox.Mode
	if yolo {
		mode = sandbox.Off
	}
	roots := s.Sandbox.WritableRoots
	if common, ok := worktree.CommonDir(paths.Dir); ok {
		// A linked worktree's git add and commit write its repository's
		// .git, as they write Dir/.git in a plain one (its hooks and
		// config stay read-only).
		roots = append(slices.Clone(roots), common)
	}
	sb, err := sandbox.New(sandbox.Policy{
		Mode: mode, Network: s.Sandbox.Network, Dir: paths.Dir, WritableRoots: roots,
		TempDirs: sandbox.DefaultTempDirs(getenv), Protected: paths.SandboxProtectedNow(os.Lstat),
		Hidden: slices.Clone(paths.Credentials), MaxProcesses: s.Sandbox.MaxProcesses, TempSize: s.Sandbox.TmpSize,
		NetworkOf: networkOf,
		// The walk for nested .claude and .agent directories waits for
		// the first command: tens of milliseconds in a large tree.
		ProtectedLater: func() []string { return protect.NestedProject(paths.Dir, protect.MaxNestedWalk) },
	})
	if err != nil {
		return nil, fmt.Errorf("building the sandbox: %w", err)
	}
	return sb, nil
}

// systemPrompt is the system prompt of a new session in the agent's
// directory.
func (a *agent) systemPrompt() string { return a.systemPromptIn(a.dir) }

// systemPromptIn is the agent's system prompt for work in dir (a
// subagent's worktree), with dir's project instructions.
func (a *agent) systemPromptIn(dir string) string {
	prompt := systemPrompt(a.instructions.of(dir), dir, time.Now(), a.settings.Tools)
	if c := a.claude.coAuthor; c != nil && *c {
		prompt += coAuthorNote
	}
	for _, svc := range a.services {
		if svc.prompt != nil {
			prompt += svc.prompt()
		}
	}
	return prompt + skills.Prompt(a.ext.skills)
}

// approval is the approval composition of the agent for fe: the policy in
// the mode in force, then fe's Asker (headless: a refusal the model
// reads); in the interface the Notification hooks hear each question.
func (a *agent) approval(fe FrontEnd) loop.ApproveFunc {
	var ask Asker = headlessAsker{mode: fe.Mode}
	if fe.Asker != nil {
		ask = fe.Asker
	}
	if fe.Interactive {
		ask = notifyingAsker{asker: ask, hooks: a.hooks}
	}
	ask = a.withPermissionHooks(ask)
	pol := a.policy(fe.Mode, fe.AllowBash)
	ap := newApproval(pol, a.plan.get, ask)
	ap.guard = a.protect
	a.children.asker = ask
	a.children.approveIn = func(mode func() string, ask Asker) loop.ApproveFunc {
		ap := newApproval(pol, mode, ask)
		ap.guard = a.protect
		return ap.approve
	}
	return ap.approve
}

// close releases what the agent opened, the last opened first: the
// services, the MCP servers, the subagents' sandbox, the sandbox, the
// root.
func (a *agent) close() {
	closeServices(a.services)
	a.closeMCP()
	a.children.close()
	a.sandbox.Close()
	a.root.Close()
}

// toolGroups are the pick groups of the built-in tools: the file and
// shell tools, picked together at the first pick, each service's tools
// (the memory tools), picked together when the model first wants one, so
// that a session that never looks into memory carries only their briefs;
// web_fetch is a group of its own, picked when the model first wants the
// web.
func (a *agent) toolGroups() [][]string {
	var groups [][]string
	served := map[string]bool{web.ToolName: true}
	for _, svc := range a.services {
		var names []string
		for _, t := range svc.tools {
			names = append(names, t.Definition().Name)
			served[t.Definition().Name] = true
		}
		if len(names) > 0 {
			groups = append(groups, names)
		}
	}
	var core []string
	for _, n := range a.registry.Names() {
		if !served[n] {
			core = append(core, n)
		}
	}
	return append(append([][]string{core}, groups...), []string{web.ToolName})
}
