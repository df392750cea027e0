package cmd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/profile"
	"github.com/agent-dev/agent/sessions"
	"github.com/agent-dev/agent/tools/mcp"
	"github.com/agent-dev/agent/tools/shell/rules"
	"github.com/agent-dev/agent/tools/shell/sandbox"
	"github.com/agent-dev/agent/worktree"
)

// doctorTimeout bounds the provider check.
const doctorTimeout = 10 * time.Second

// errDoctor is doctor's failure: something it checked does not work. What
// is printed already says what.
var errDoctor = errors.New("")

// newDoctorCmd builds `agent doctor`: what this machine can do for the
// agent (the sandbox: Landlock ABI, user namespaces, the mode in force),
// where its config and data live, whether the session database is sound
// (SQLite's quick_check), how many background shells the agent's open
// sessions run, the language servers (found on PATH or not, where each is
// configured; none is started), and whether the provider's endpoint
// speaks its API.
// It exits 1 when the database is damaged, the provider cannot be reached
// or does not speak the API, or the sandbox the configuration asks for
// cannot be enforced.
func newDoctorCmd(st Streams, getenv func(string) string, o *Options) *cobra.Command {
	c := &cobra.Command{
		Use:   "doctor",
		Short: "Check the sandbox, the configuration and the provider",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			o.NetworkSet = c.Flags().Changed("network")
			return runDoctor(c.Context(), st.Out, getenv, o)
		},
	}
	f := c.Flags()
	f.StringVar(&o.ConfigPath, "config", "", "config file (default $XDG_CONFIG_HOME/agent/config.toml)")
	f.StringVar(&o.Profile, "profile", "", "provider profile of the config file")
	f.StringVar(&o.Model, "model", "", "model name")
	f.StringVar(&o.BaseURL, "base-url", "", "API base URL")
	f.StringVar(&o.Provider, "provider", "", "wire protocol: openai, openai-responses or anthropic")
	f.StringVar(&o.Sandbox, "sandbox", "", "sandbox mode to check: workspace-write, read-only or off")
	f.BoolVar(&o.Network, "network", false, "check the sandbox with the network allowed")
	f.StringVarP(&o.Dir, "cwd", "C", "", "working directory (default the current directory)")
	return c
}

// doctorLine writes one line of agent doctor's report: a key, then a
// format and its arguments.
type doctorLine = func(key, format string, a ...any)

func runDoctor(ctx context.Context, w io.Writer, getenv func(string) string, o *Options) error {
	dir, err := workingDir(o.Dir)
	if err != nil {
		return err
	}
	line := func(k, format string, a ...any) { fmt.Fprintf(w, "%-18s %s\n", k, fmt.Sprintf(format, a...)) }
	line("agent", "%s", host.Version())
	line("working directory", "%s", dir)
	path := cmp.Or(o.ConfigPath, host.DefaultConfigPath(getenv))
	line("config", "%s", host.DescribeConfigFile(path))
	h, err := openHost(ctx, o, getenv, false)
	var usage usageError
	switch {
	case errors.As(err, &usage):
		line("configuration", "%v", err)
		return errDoctor
	case err != nil:
		return err
	}
	defer h.Close()
	failed := false
	if db, err := h.DB(); err == nil {
		failed = checkDatabase(ctx, line, db) || failed
		line("background", "%d processes running in this machine's sessions (bash run_in_background; /shells lists a session's)", host.RunningBackground(db))
	} else {
		line("sessions", "%v", err)
	}
	s, serr := h.Settings()
	if serr != nil && !errors.As(serr, &usage) {
		return serr
	}
	if serr != nil && s.Sandbox.Mode == "" {
		line("configuration", "%v", serr)
		return errDoctor
	}
	ss, err := h.SandboxStatus(dir)
	if err != nil {
		return err
	}
	failed = printSandbox(line, ss) || failed
	printToolCaches(line, s, dir, getenv, exec.LookPath)
	failed = printPolicy(line, s) || failed
	printMCP(ctx, line, h, dir, o.TrustProjectMCP)
	printWorktrees(ctx, line, h, dir)
	h.PrintExtensions(line, dir)
	h.PrintPlugins(line, dir)
	h.PrintLanguageServers(line, dir, exec.LookPath)
	if serr != nil {
		line("provider", "%v", serr)
		failed = true
	} else {
		failed = checkProvider(ctx, line, s) || failed
	}
	if failed {
		return errDoctor
	}
	return nil
}

// printPolicy prints what commands do not get of the environment and the
// permission rules, and reports whether the command rules are invalid.
func printPolicy(line doctorLine, s host.Settings) bool {
	removed := s.EnvFilter().Removed(os.Environ())
	if len(removed) == 0 {
		line("env removed", "none of this environment's variables look like secrets")
	} else {
		line("env removed", "%d variables commands do not get ([sandbox] env_passthrough keeps one, env_remove adds):", len(removed))
		for _, r := range removed {
			line("  "+r.Name, "%s", r.Why)
		}
	}
	line("permission mode", "ask in the interface, auto headless (unless --permission-mode or --yolo)")
	allowCmds, allowTools := host.SplitRules(s.Allow)
	denyCmds, denyTools := host.SplitRules(s.Deny)
	failed := false
	if _, err := rules.Compile(allowCmds, denyCmds); err != nil {
		line("command rules", "invalid: %v", err)
		failed = true
	} else {
		line("command rules", "%d allow, %d deny", len(allowCmds), len(denyCmds))
	}
	if len(allowTools)+len(denyTools) > 0 {
		line("tool rules", "%d allow, %d deny (mcp__...)", len(allowTools), len(denyTools))
	}
	return failed
}

// printMCP starts the MCP servers of dir and prints each one's state.
func printMCP(ctx context.Context, line doctorLine, h *host.Host, dir string, trustProject bool) {
	statuses, err := h.MCPStatus(ctx, dir, trustProject)
	if err != nil {
		line("mcp servers", "%v", err)
		return
	}
	if len(statuses) == 0 {
		return
	}
	line("mcp servers", "%d configured (agent mcp list shows their tools)", len(statuses))
	for _, st := range statuses {
		state := string(st.State)
		if st.Error != "" {
			state += ": " + st.Error
		}
		if st.State == mcp.StateRunning {
			state += fmt.Sprintf(", %d tools", len(st.Tools))
		}
		line("  "+st.Name, "%s", state)
	}
}

// printWorktrees says how many worktrees agent made for dir's
// repository, and how many of them a crash left or nobody works in; it
// prints nothing when there are none.
func printWorktrees(ctx context.Context, line doctorLine, h *host.Host, dir string) {
	m, err := h.Worktrees()
	if err != nil {
		return
	}
	repo, ok := worktree.RepoOf(dir)
	if !ok {
		return
	}
	entries, _ := m.List(ctx, repo)
	if len(entries) == 0 {
		return
	}
	inUse, crashed, dirty := 0, 0, 0
	for _, e := range entries {
		switch {
		case e.InUse:
			inUse++
		case e.Crashed || e.Owner != nil: // its owner is gone: found or not yet by a start
			crashed++
		}
		if e.Status.Dirty > 0 {
			dirty++
		}
	}
	line("worktrees", "%d made by agent for this repository: %d in use, %d left by a crash, %d with uncommitted changes (agent worktree list, agent worktree prune)",
		len(entries), inUse, crashed, dirty)
}

// checkDatabase runs SQLite's quick_check on the session database and
// reports whether it is damaged, with what to do.
func checkDatabase(ctx context.Context, line func(string, string, ...any), db string) bool {
	err := sessions.QuickCheck(ctx, db)
	switch {
	case errors.Is(err, sessions.ErrNoDatabase):
		line("sessions", "%s (not created yet)", db)
		return false
	case err == nil:
		line("sessions", "%s (quick_check ok)", db)
		return false
	}
	line("sessions", "%s DAMAGED: %v", db, err)
	// The newest sessions may be in the write-ahead log still (a run
	// leaves it for the next): it moves with the file, under the name
	// SQLite looks for beside the new one.
	if _, err := os.Stat(db + "-wal"); err == nil {
		line("", "move it aside with its log (mv %q %q && mv %q %q && rm -f %q) and agent starts a new one;",
			db, db+".damaged", db+"-wal", db+".damaged-wal", db+"-shm")
	} else {
		line("", "move it aside (mv %q %q) and agent starts a new one;", db, db+".damaged")
	}
	line("", "sqlite3 %q .recover | sqlite3 %q may save its sessions into a new file", db+".damaged", db)
	return true
}

// printSandbox prints the sandbox lines and reports whether the sandbox
// falls short of its mode.
func printSandbox(line func(string, string, ...any), ss sandbox.Status) bool {
	if ss.LandlockABI > 0 {
		line("landlock", "ABI %d", ss.LandlockABI)
	} else if ss.Mode != sandbox.Off || ss.Reason != "" {
		line("landlock", "not available")
	}
	switch {
	case ss.UserNamespaces:
		line("user namespaces", "available")
	case ss.UserNamespacesErr != "":
		line("user namespaces", "unavailable: %s", ss.UserNamespacesErr)
	}
	switch {
	case ss.Mode == sandbox.Off:
		line("sandbox", "off: commands run unconfined")
		return false
	case !ss.Enforced:
		line("sandbox", "%s requested, NOT ENFORCED: %s", ss.Mode, ss.Reason)
		line("", "every command will be asked about (denied headless unless allowed)")
		return true
	}
	line("sandbox", "%s", ss.Summary())
	line("  filesystem", "%s", ss.Mechanism)
	if ss.NetworkBy != "" {
		line("  network off by", "%s", ss.NetworkBy)
	}
	if ss.ProtectedBy != "" {
		line("  protected paths", "%s", ss.ProtectedBy)
	}
	if ss.HiddenBy != "" && len(ss.Hidden) > 0 {
		line("  unreadable", "%s (%s; [sandbox] deny_read, allow_read)", strings.Join(ss.Hidden, ", "), ss.HiddenBy)
	}
	for _, b := range ss.Bounds {
		line("  bound", "%s", b)
	}
	for _, w := range ss.Warnings {
		line("  warning", "%s", w)
	}
	return false
}

// checkProvider checks that the provider's endpoint speaks its API: a model
// list that parses, or else a one-token completion. It reports whether the
// check failed. A server that answers something else (a web server's 501
// or 404 page) fails it.
func checkProvider(ctx context.Context, line doctorLine, s host.Settings) bool {
	key := "no API key"
	if s.APIKey != "" {
		key = "API key from " + s.APIKeyEnv
	}
	line("provider", "%s %s (%s), model %s", s.Provider, s.BaseURL, key, s.Model)
	for i, fb := range s.Fallbacks {
		where := "the same server"
		if fb.BaseURL != s.BaseURL || fb.Provider != s.Provider {
			where = fmt.Sprintf("profile %s: %s %s", fb.Profile, fb.Provider, fb.BaseURL)
		}
		line(fmt.Sprintf("  fallback %d", i+1), "%s (%s; when the model is still overloaded, rate limited or failing after its retries)", fb.Model, where)
	}
	ctx, cancel := context.WithTimeout(ctx, doctorTimeout)
	defer cancel()
	start := time.Now()
	p := profile.New(s.Settings, -1, nil)
	ids, err := p.Models(ctx)
	var ae *providers.APIError
	switch {
	case errors.As(err, &ae) && ae.IsAuth():
		line("  reachable", "NO: %v", err)
		return true
	case err == nil && len(ids) > 0:
		found := "; model not in its list"
		if slices.Contains(ids, s.Model) {
			found = "; model listed"
		}
		line("  reachable", "yes, %d models in %d ms%s", len(ids), time.Since(start).Milliseconds(), found)
		return false
	}
	// No model list: a one-token completion tells an API server that lists
	// no models from a server that is not one.
	listed := "no model list"
	if err != nil {
		listed = fmt.Sprintf("no model list (%v)", err)
	}
	start = time.Now()
	req := providers.Request{Model: s.Model, MaxOutputTokens: 1, ThinkingBudget: -1,
		Messages: []providers.Message{{Role: providers.RoleUser, Parts: []providers.Part{providers.Text{Text: "Say OK."}}}}}
	if _, cerr := p.Stream(ctx, req, nil); cerr != nil {
		line("  reachable", "NO: %s, and a one-token completion failed: %v", listed, cerr)
		line("", "is %s an %s-compatible API endpoint? check base_url and the model", s.BaseURL, apiName(s.Provider))
		return true
	}
	line("  reachable", "yes, a one-token completion in %d ms (%s)", time.Since(start).Milliseconds(), listed)
	return false
}

// apiName is the name of a provider's wire protocol for messages.
func apiName(provider string) string {
	if provider == profile.Anthropic {
		return "Anthropic"
	}
	return "OpenAI"
}
