package cmd

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/agent-dev/agent/acp"
	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/tools/mcp"
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
	addCapFlags(f, &o.Flags)
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
	if o.PermissionMode == host.ModeYolo || o.Yolo {
		return usagef("agent acp takes --permission-mode ask, auto or plan")
	}
	mode, err := host.PermissionMode(&o.Flags, true)
	if err != nil {
		return err
	}
	// The connection to the model's server opens at start (every session's
	// requests share it) and the store beside initialize's answer: the
	// first session/new waits for it once its agent is built.
	h, err := openHost(ctx, o, getenv, true)
	if err != nil {
		return err
	}
	defer h.Close()
	h.OpenStore(ctx)
	b := &acpBackend{h: h, o: o, mode: mode, log: st.Err}
	return acp.Serve(ctx, acp.Config{In: st.In, Out: st.Out, Log: st.Err, Backend: b,
		Name: "agent", Version: host.Version(), Images: true})
}

// acpBackend opens ACP sessions on the host: each an agent of its own in
// the session's directory (its root, sandbox, tools and MCP servers).
type acpBackend struct {
	h    *host.Host
	o    *Options
	mode string // the sessions' first permission mode
	log  io.Writer
}

var _ acp.Backend = (*acpBackend)(nil)

// NewSession creates a session in req.Cwd.
func (b *acpBackend) NewSession(ctx context.Context, req acp.SessionRequest) (acp.Session, error) {
	return b.open(ctx, req, host.Request{Dir: req.Cwd})
}

// LoadSession opens stored session id, which must have worked in
// req.Cwd. A session another live process holds is refused (ACP's
// session/load cannot answer with a fork's new id).
func (b *acpBackend) LoadSession(ctx context.Context, id string, req acp.SessionRequest) (acp.Session, error) {
	return b.open(ctx, req, host.Request{Dir: req.Cwd, Resume: id, Load: true})
}

// open opens the session hreq names for req's client: its questions go to
// the client (session/request_permission), its files through the client's
// buffers when it declared them, and the client's MCP servers join the
// configured ones. A repository's hooks and commands run as in headless
// runs: only when trusted before (or --trust-project); nobody is asked.
func (b *acpBackend) open(ctx context.Context, req acp.SessionRequest, hreq host.Request) (acp.Session, error) {
	if fi, err := os.Stat(req.Cwd); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("cwd %s is not a directory", req.Cwd)
	}
	ask := &acpAsker{client: req.Client, always: map[string]bool{}}
	files := &clientBuffers{}
	fe := host.FrontEnd{Name: "acp", Mode: b.mode, AllowBash: b.o.AllowBash, Asker: ask, Plan: ask.plan, Files: files,
		Warn:  func(msg string) { fmt.Fprintln(b.log, "agent: "+msg) },
		Trust: host.Trust{Hooks: b.o.TrustProject},
		MCP:   host.MCPStart{Servers: clientServers(req.MCPServers), Where: "the client's mcpServers"}}
	sess, err := b.h.OpenSession(ctx, hreq, fe)
	if err != nil {
		return nil, err
	}
	ask.session = sess.ID()
	files.connect(req.Client, sess.ID(), sess.Dir())
	return &acpSession{Session: sess}, nil
}

// clientServers are the MCP servers of an ACP client's session/new.
func clientServers(servers []acp.MCPServer) map[string]mcp.ServerDef {
	if len(servers) == 0 {
		return nil
	}
	out := map[string]mcp.ServerDef{}
	for _, s := range servers {
		sc := mcp.ServerDef{Command: s.Command, Args: s.Args, Env: s.Env, URL: s.URL, Headers: s.Headers}
		if s.Type == "sse" {
			sc.Transport = "sse"
		}
		out[s.Name] = sc
	}
	return out
}

// acpSession is one ACP session: the host's, under ACP's names.
type acpSession struct{ *host.Session }

var _ acp.Session = (*acpSession)(nil)

// ReadFile reads rel inside the session's directory, through the
// client's buffers when it reads files (Session.ReadText).
func (s *acpSession) ReadFile(rel string) (string, bool) { return s.ReadText(rel) }

// WatchCommands calls fn after the session's MCP servers changed (their
// prompts are commands).
func (s *acpSession) WatchCommands(fn func()) { s.Session.OnMCPChange(fn) }

var _ acp.CommandWatcher = (*acpSession)(nil)

// Commands are the session's custom slash commands and its MCP servers'
// prompts, for available_commands_update.
func (s *acpSession) Commands() []acp.Command {
	var out []acp.Command
	for _, c := range s.Session.Commands() {
		out = append(out, acp.Command{Name: c.Name, Description: c.Description, Hint: c.Hint})
	}
	return out
}
