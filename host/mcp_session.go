package host

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/telemetry/tracecontext"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/mcp"
	"github.com/agent-dev/agent/tools/mcp/oauth"
	"github.com/agent-dev/agent/tools/picker"
)

// mcpToolsDir is where the MCP servers' last known tool lists are kept,
// in the data directory: one file per server definition.
const mcpToolsDir = "mcp-tools"

// configureMCP resolves the MCP servers of the agent (the config's, the
// project's .mcp.json, the front-end's) and builds their manager, which
// starts nothing before its Start: a project's servers start once trusted
// (fe.Trust, or approved by the person's Claude Code settings, see
// mcpApprovals), their problems go to fe.Warn once each, a server's form
// goes to fe.MCP.Elicit. A server whose definition ran before is offered
// by its last tool list from the first request on (see
// mcp.Options.CacheDir); the front-ends that start the servers with the
// session (not fe.MCP.Later) have their first request wait for the servers
// agent never saw, and only those (see settledCatalog).
func (a *agent) configureMCP(ctx context.Context, h *Host, fe FrontEnd) error {
	s := a.settings
	cfgs, project, err := resolveMCP(s.MCPServers, a.dir, s.ProviderKeyEnvs, h.cfg.Getenv)
	if err != nil {
		return err
	}
	more, lines := pluginServers(a.plugins, a.dir, s.ProviderKeyEnvs, h.cfg.Getenv, cfgs)
	for _, l := range lines {
		fe.warn(l)
	}
	cfgs = append(cfgs, more...)
	if len(fe.MCP.Servers) > 0 {
		more, err := mcpServers(fe.MCP.Servers, fe.MCP.Where, a.dir, s.ProviderKeyEnvs, h.cfg.Getenv)
		if err != nil {
			return err
		}
		cfgs = append(cfgs, more...)
	}
	for _, c := range cfgs {
		if _, ok := project[c.Name]; !ok && c.Skipped != "" { // the project's are told below
			fe.warn(fmt.Sprintf("MCP server %s skipped: %s", c.Name, c.Skipped))
		}
	}
	for _, l := range decideProject(cfgs, project, h.trust, a.dir, fe.Trust) {
		fe.warn(l)
	}
	for i, c := range cfgs {
		if c.Command != "" && c.Env != nil { // a server process joins the trace the session opens in (TRACEPARENT)
			cfgs[i].Env = tracecontext.WithEnv(c.Env, h.telemetry().Context(ctx))
		}
	}
	a.mcpCfgs = cfgs
	a.awaitNewMCP = !fe.MCP.Later
	attachOAuth(a.mcpCfgs, a.oauth, fe.warn, a.settings.EnvFilter(), true)
	a.mcp = mcp.NewManager(a.mcpCfgs, mcp.Options{OnChange: a.mcpChanged, Warn: fe.warn, Version: Version(),
		Roots: []string{a.dir}, Elicit: a.elicit(fe), ElicitURL: fe.MCP.ElicitURL, HideResources: a.resourcesDenied,
		CacheDir: h.mcpToolsDir()})
	a.rebuildCatalog() // the last known tools of the servers that will start
	a.mentions.UseResources(mcpResources{a.mcp})
	return nil
}

// mcpToolsDir is the directory of the servers' known tool lists; "" (none
// kept) without a data directory.
func (h *Host) mcpToolsDir() string {
	if h.dataDir == "" {
		return ""
	}
	return filepath.Join(h.dataDir, mcpToolsDir)
}

// decideProject decides which project servers of cfgs (project names
// them) start, and returns what the person should hear of it: those a
// disabledMcpjsonServers names are skipped, those the person's
// ~/.claude/settings.json approves start, and the others as trust says:
// with trust.Ask (the interface) the person is asked unless their answer
// for this very definition is remembered; without it (headless, agent mcp
// list) they start only when trusted before or with trust.MCP.
func decideProject(cfgs []mcp.Config, project map[string]projectServer, store *trustStore, dir string, trust Trust) []string {
	approved, lines := loadMCPApprovals(dir).apply(cfgs, project)
	rest := maps.Clone(project)
	for n := range approved {
		delete(rest, n)
	}
	if trust.Ask == nil || store == nil {
		return append(lines, gateProject(cfgs, rest, store, dir, trust.MCP)...)
	}
	for i, c := range cfgs {
		ps, ok := rest[c.Name]
		switch {
		case !ok:
		case c.Skipped != "":
			lines = append(lines, fmt.Sprintf("MCP server %s skipped: %s", c.Name, c.Skipped))
		case store.get(trustMCP, dir, c.Name, ps.def) != trustAllowed: // allowed: nothing to ask, its known tools offered at once
			cfgs[i].Gate = askTrust(store, dir, c.Name, ps, trust.Ask)
		}
	}
	return lines
}

// elicit is the servers' question to the person: fe.MCP.Elicit, which, for
// a server's page to open (URL mode), says whether the person agreed; the
// page then opens in the browser, with the environment bash gets and none
// of the servers' OAuth secrets (a failure to open is a warning: the
// person has the URL). nil without fe.MCP.Elicit.
func (a *agent) elicit(fe FrontEnd) mcp.ElicitFunc {
	ask := fe.MCP.Elicit
	if ask == nil {
		return nil
	}
	return func(ctx context.Context, e mcp.Elicitation) (mcp.ElicitAnswer, error) {
		ans, err := ask(ctx, e)
		if err == nil && e.URL != "" && ans.Action == mcp.ElicitAccept {
			if oerr := oauth.OpenBrowser(e.URL, os.Getenv, browserEnv(a.mcpCfgs, a.settings.EnvFilter())); oerr != nil {
				fe.warn(fmt.Sprintf("%v; open %s yourself", oerr, e.URL))
			}
		}
		return ans, err
	}
}

// settledCatalog is the loop's catalog source. Before each snapshot it
// takes for a request or a step's calls, the loop calls Settle with the
// turn's context, which waits for the MCP tool lists announced as changed
// to arrive (each fetch bounded by its server's startup_timeout), so that
// the next request carries a change the servers announced before it; and,
// where the servers started with the session (headless, ACP, the SDK), for
// the servers agent never saw start (no known tool list), each up to its
// own startup_timeout, so that the first request offers their tools: the
// servers with a known list hold no request. Current itself never waits:
// loop.New calls it, in the interface's Update too (/new, a picked
// session).
type settledCatalog struct{ a *agent }

// Current returns the catalog in force.
func (c settledCatalog) Current() *picker.Catalog { return c.a.catalog.Current() }

// Settle returns once no MCP tool list announced as changed is still
// being fetched (and no server never seen is still starting, see
// settledCatalog), or when ctx (the turn's) is done. From then on, what
// changes for the model of the servers is a note (mcpNotes).
func (c settledCatalog) Settle(ctx context.Context) {
	if c.a.mcp == nil {
		return
	}
	if c.a.awaitNewMCP {
		c.a.mcp.AwaitUnknown(ctx)
	}
	c.a.mcp.Settle(ctx)
	c.a.mcp.Baseline()
}

// mcpNotes adds what the model has not heard of the MCP servers (one that
// joined, one that arrived with other tools than those offered while it
// started, one that did not start) to the result of a call of the
// session's own loop (not a subagent's), where it is stored with the
// result, so that the next request tells it and the cached prefix stays.
func (a *agent) mcpNotes(next loop.AfterCallFunc) loop.AfterCallFunc {
	return func(ctx context.Context, c loop.AfterCall) tools.Result {
		res := c.Result
		if next != nil {
			res = next(ctx, c)
		}
		if c.Origin.Nested() || a.mcp == nil {
			return res
		}
		if note := a.mcp.Notes(); note != "" {
			res.Content += "\n\n" + note
		}
		return res
	}
}

// mcpPromptNote is the same note for the next prompt, when the servers
// changed between turns; "" when there is nothing to tell.
func (a *agent) mcpPromptNote() string {
	if a.mcp == nil {
		return ""
	}
	return a.mcp.Notes()
}

// closeMCP stops the MCP servers, each with its process group.
func (a *agent) closeMCP() {
	if a.mcp != nil {
		a.mcp.Close()
	}
}

// mcpChanged is the servers' OnChange: the catalog is built anew and the
// front-end's watchers are told (Session.OnMCPChange).
func (a *agent) mcpChanged() {
	a.rebuildCatalog()
	a.mcpWatchMu.Lock()
	watch := slices.Clone(a.mcpWatch)
	a.mcpWatchMu.Unlock()
	for _, fn := range watch {
		fn()
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
