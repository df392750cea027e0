package cmd

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/agent-dev/agent/hooks"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/memory"
	"github.com/agent-dev/agent/mention"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sessions"
	"github.com/agent-dev/agent/skills"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/fs"
	"github.com/agent-dev/agent/tools/mcp"
	"github.com/agent-dev/agent/tools/mcp/oauth"
	"github.com/agent-dev/agent/tools/picker"
	"github.com/agent-dev/agent/tools/protect"
	"github.com/agent-dev/agent/tools/shell"
	"github.com/agent-dev/agent/tools/shell/rules"
	"github.com/agent-dev/agent/tools/shell/sandbox"
	"github.com/agent-dev/agent/tools/todo"
)

// agent is what a run needs, built once from the settings: the working
// directory and its root, the tools and the toolset, the provider settings.
// Headless mode and the interface build their loops from it.
type agent struct {
	settings settings
	dir      string
	root     *os.Root
	registry *tools.Registry
	catalog  *picker.Live // the built-in tools and the MCP servers' current ones
	builtins []tools.Tool
	mode     picker.Mode
	mcp      *mcp.Manager // nil until newMCP
	// elicit asks the person an MCP server's form; nil declines (headless).
	elicit mcp.ElicitFunc
	// elicitURL declares URL-mode elicitation: elicit also asks whether
	// to open a server's page (the interface).
	elicitURL bool
	// rebuild serialises catalog rebuilds, so that the last one published
	// is built from the latest tools.
	rebuild sync.Mutex
	mcpCfgs []mcp.Config
	// oauth keeps the MCP servers' authorizations (nil: none kept);
	// mcpWarn is newMCP's warn, where /mcp login's notices go too.
	oauth   *oauth.Store
	mcpWarn func(string)
	// mcpProject names the servers of the project's .mcp.json, which
	// start only once trusted.
	mcpProject map[string]projectServer
	// files is the file tools' state of each session (what its model has
	// read, its undo journal); journals gives the journals once the
	// session store is open (useStore).
	files    *fs.Sessions
	journals *storeJournals
	mentions *mention.Mentions // @path completion and attachments
	memory   *memory.Memory    // the project's memory; nil until addMemory
	// memoryTools names the memory tools, a pick group of their own.
	memoryTools []string
	sandbox     *sandbox.Sandbox
	rules       *rules.Set
	// protect is the file tools' guard of protected paths, which the
	// approval grants single writes through.
	protect *protect.Guard
	// toolAllow and toolDeny are the permission rules naming tools
	// (mcp__...).
	toolAllow, toolDeny []string
	// domains are web_fetch's domain rules; webTrust keeps the domains
	// the person allowed always (nil without a data directory).
	domains  domainRules
	webTrust *trustStore
	// children builds the task tool's subagents; agentWarnings are the
	// problems of the agent definitions, one line each.
	// pool holds the connections to the model's server (preconnect opens
	// the first before the first request).
	pool          *providers.Pool
	children      *children
	agentWarnings []string
	// plan is the permission mode in force and plan mode's question.
	plan *planState
	// ext are the hooks, custom commands and skills read at start; hooks
	// runs the hooks once a front-end set it up (nil: none run).
	ext   extensions
	hooks *hookSet
	// buffers are where the file tools read and write text: the disk
	// until an ACP client that declared fs capabilities connects them.
	buffers *clientBuffers
}

// policy is the permission policy of a run in mode.
func (a *agent) policy(mode string, allowBash bool) policy {
	return policy{mode: mode, allowBash: allowBash, rules: a.rules, sandbox: a.sandbox.Brief(), toolAllow: a.toolAllow, toolDeny: a.toolDeny,
		planSandbox: a.children.bash != nil, domains: a.domains}
}

// useStore records the file tools' changes in store's undo journal of
// each call's session.
func (a *agent) useStore(store *sessions.Store) {
	a.journals.mu.Lock()
	defer a.journals.mu.Unlock()
	a.journals.store = store
	a.children.useStore(store)
}

// storeJournals gives each session's undo journal from the session store,
// once there is one; before, and for a call outside a session, nothing is
// recorded.
type storeJournals struct {
	mu    sync.Mutex
	store *sessions.Store
}

// journal returns session id's journal, nil when there is none.
func (j *storeJournals) journal(id string) fs.Journal {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.store == nil || id == "" {
		return nil
	}
	return j.store.Journal(id)
}

// newAgent resolves the settings and builds the tools for dir; its
// requests go through pool (nil: a new one). Close the returned agent's
// root and sandbox when done.
func newAgent(o *Options, dir string, getenv func(string) string, pool *providers.Pool) (*agent, error) {
	if pool == nil {
		pool = providers.NewPool(nil)
	}
	s, err := resolveSettings(o, getenv)
	if err != nil {
		return nil, err
	}
	mode, err := picker.ParseMode(s.Tools)
	if err != nil {
		return nil, usageError{err}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, usagef("working directory: %w", err)
	}
	allowRest, allowDomains, err := splitDomainRules(s.Allow)
	if err != nil {
		root.Close()
		return nil, usagef("config %s: permissions: %w", s.ConfigPath, err)
	}
	denyRest, denyDomains, err := splitDomainRules(s.Deny)
	if err != nil {
		root.Close()
		return nil, usagef("config %s: permissions: %w", s.ConfigPath, err)
	}
	allowCmds, allowTools := splitRules(allowRest)
	denyCmds, denyTools := splitRules(denyRest)
	set, err := rules.Compile(allowCmds, denyCmds)
	if err != nil {
		root.Close()
		return nil, usagef("config %s: permissions: %w", s.ConfigPath, err)
	}
	paths := protectedPaths(o, s, dir, getenv)
	sb, err := newSandbox(o, s, paths, getenv)
	if err != nil {
		root.Close()
		return nil, err
	}
	journals, guard := &storeJournals{}, protect.NewGuard(paths)
	state := fs.NewSessions(journals.journal)
	ext := loadExtensions(dir, s)
	buffers := &clientBuffers{}
	files := fs.ToolsWith(root, fs.Options{Sessions: state, Protect: guard, ReadDirs: skills.Dirs(ext.skills), Buffers: buffers, ImageLimit: s.imageLimit()})
	bash := newBash(s, dir, sb)
	childSb, childBash, err := readOnlyBash(o, s, paths, getenv)
	if err != nil {
		root.Close()
		sb.Close()
		return nil, err
	}
	task, kids, agentWarnings := newTaskTool(dir, s)
	kids.bash, kids.sandbox = childBash, childSb
	plans := &planState{}
	builtins := append(files, modeBash{normal: bash, readOnly: childBash, plan: plans.active}, task, todo.New(storeTodos{journals}), plans.tool(), newWebFetch(s))
	if len(ext.skills) > 0 {
		builtins = append(builtins, skills.Tool(ext.skills))
	}
	reg, err := tools.NewRegistry(builtins...)
	if err == nil {
		var cfgs []mcp.Config
		var project map[string]projectServer
		cfgs, project, err = resolveMCP(s.MCPServers, dir, s.ProviderKeyEnvs, getenv)
		if err == nil {
			a := &agent{settings: s, dir: dir, root: root, registry: reg, catalog: picker.NewLive(picker.New(reg, mode, reg.Names())),
				builtins: builtins, mode: mode, toolAllow: allowTools, toolDeny: denyTools, mcpCfgs: cfgs, mcpProject: project,
				files: state, journals: journals, sandbox: sb, rules: set, protect: guard,
				mentions: mention.New(root, mention.Files{Read: fs.ReadFile(root, state), List: fs.ListFiles(root), Walk: fs.Files}), children: kids, pool: pool, agentWarnings: append(agentWarnings, ext.warnings...), plan: plans, ext: ext, buffers: buffers}
			a.catalog.Set(picker.New(reg, mode, a.toolGroups()...))
			a.webTrust = a.trustStore(o, getenv)
			a.oauth = oauthStore(o, getenv)
			a.domains = domainRules{allow: allowDomains, deny: denyDomains, always: alwaysDomains(a.webTrust)}
			kids.a = a
			return a, nil
		}
	}
	root.Close()
	sb.Close()
	kids.close()
	return nil, fmt.Errorf("building the tools: %w", err)
}

// newBash is the bash tool of a run in dir: commands confined by sb, with
// its temporary directory as TMPDIR, without the provider's keys and the
// secrets the settings' filter removes.
func newBash(s settings, dir string, sb *sandbox.Sandbox) tools.Tool {
	var extraEnv []string
	if t := sb.TempDir(); t != "" {
		extraEnv = []string{"TMPDIR=" + t}
	}
	return shell.New(shell.Config{Dir: dir, StripEnv: s.ProviderKeyEnvs, EnvKeep: s.EnvKeep, EnvRemove: s.EnvRemove,
		ExtraEnv: extraEnv, Build: sb.Build, Guard: sb.Guard, Confinement: sb.Brief().Confinement()})
}

// newMCP builds the manager of the configured MCP servers; nothing starts
// before its Start, after which their tools join the catalog as each
// server is ready. warn is given each server problem once, in one line.
// Call closeMCP when done.
func (a *agent) newMCP(warn func(string)) {
	a.mcpWarn = warn
	attachOAuth(a.mcpCfgs, a.oauth, warn, a.envFilter(), true)
	a.mcp = mcp.NewManager(a.mcpCfgs, mcp.Options{OnChange: a.rebuildCatalog, Warn: warn, Version: versionString(),
		Roots: []string{a.dir}, Elicit: a.elicit, ElicitURL: a.elicitURL, HideResources: a.resourcesDenied})
	if a.mentions != nil {
		a.mentions.UseResources(mcpResources{a.mcp})
	}
}

// settledCatalog is the loop's catalog source. Before each snapshot it
// takes for a request or a step's calls, the loop calls Settle with the
// turn's context, which waits for the MCP tool lists announced as changed
// to arrive (each fetch bounded by its server's startup_timeout), so that
// the next request carries a change the servers announced before it.
// Current itself never waits: loop.New calls it, in the interface's Update
// too (/new, a picked session).
type settledCatalog struct{ a *agent }

// Current returns the catalog in force.
func (c settledCatalog) Current() *picker.Catalog { return c.a.catalog.Current() }

// Settle returns once no MCP tool list announced as changed is still
// being fetched, or when ctx (the turn's) is done.
func (c settledCatalog) Settle(ctx context.Context) {
	if c.a.mcp != nil {
		c.a.mcp.Settle(ctx)
	}
}

// closeMCP stops the MCP servers, each with its process group.
func (a *agent) closeMCP() {
	if a.mcp != nil {
		a.mcp.Close()
	}
}

// rebuildCatalog publishes a new catalog of the built-in tools (one pick
// group, offered as briefs in pick mode) and the MCP servers' current
// tools (picked one by one, listed by name in pick_tools' index until
// picked: a brief each would cost more than all the built-in tools).
func (a *agent) rebuildCatalog() {
	a.rebuild.Lock()
	defer a.rebuild.Unlock()
	ts := append(slices.Clone(a.builtins), denyByRules(guardGit(a.mcp.Tools(), a.sandbox), a.toolDeny)...)
	reg, err := tools.NewRegistry(ts...)
	if err != nil {
		return // names are unique by construction; keep the current catalog
	}
	var external []string
	for _, t := range ts[len(a.builtins):] {
		external = append(external, t.Definition().Name)
	}
	a.catalog.Set(picker.New(reg, a.mode, a.toolGroups()...).WithIndex(external...))
}

// newSandbox builds the sandbox of a run in paths.Dir: the mode of the
// settings (off in yolo), the working directory, the temporary directories
// and the configured roots writable; the agent's own files read-only and
// the credentials unreadable, from the run's one list of protected paths.
func newSandbox(o *Options, s settings, paths protect.Paths, getenv func(string) string) (*sandbox.Sandbox, error) {
	mode := s.Sandbox
	if o.Yolo || o.PermissionMode == modeYolo {
		mode = sandbox.Off
	}
	sb, err := sandbox.New(sandbox.Policy{
		Mode: mode, Network: s.Network, Dir: paths.Dir, WritableRoots: s.WritableRoots,
		TempDirs: sandbox.DefaultTempDirs(getenv), Protected: paths.SandboxProtected(os.Lstat),
		Hidden: slices.Clone(paths.Credentials), MaxProcesses: s.MaxProcesses, TempSize: s.TmpSize,
	})
	if err != nil {
		return nil, fmt.Errorf("building the sandbox: %w", err)
	}
	return sb, nil
}

// systemPrompt is the system prompt of a new session in the agent's
// directory.
func (a *agent) systemPrompt() string {
	return systemPrompt(a.root, a.dir, time.Now(), a.settings.Tools) + a.memoryPrompt() + skills.Prompt(a.ext.skills)
}

// newLoop builds a loop for model with the session's tool-call recorder
// (nil records nothing) and the approval hook. Its context window is the
// configured one, else the model's from the table of common models.
func (a *agent) newLoop(model string, store loop.Store, approve loop.ApproveFunc) (*loop.Loop, error) {
	s := a.settings
	a.children.useApproval(approve) // the subagents ask as their parent does
	h := a.hooks
	return loop.New(loop.Config{
		Gate:          h.gateFunc(),
		AfterCall:     h.afterCallFunc(),
		BeforeStop:    h.stopFunc(hooks.Stop),
		BeforeCompact: h.compactFunc(),
		Provider:      &preparingProvider{Provider: newProvider(s, s.retries(), a.pool.Client()), prepare: a.sandbox.Prepare},
		Model:         model,
		Catalog:       settledCatalog{a},
		MaxSteps:      s.MaxSteps,
		Approve:       approve,
		Store:         store,
		Window:        cmp.Or(s.ContextWindow, providers.ContextWindow(model)),
		AutoCompact:   s.AutoCompact,
		ReserveOutput: s.outputReserve(),
		Prepare: func(_ context.Context, _ loop.Preparing, req providers.Request) providers.Request {
			return a.plan.prepare(req)
		},
	})
}
