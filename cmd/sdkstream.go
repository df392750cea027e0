package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/sdkstream"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/plan"
	"github.com/agent-dev/agent/tools/shell/rules"
	"github.com/agent-dev/agent/turn"
)

// sdkOptions are the flags the Claude Agent SDK passes its executable
// that agent's own flags do not already cover.
type sdkOptions struct {
	InputFormat          string
	PartialMessages      bool
	PermissionPromptTool string
	AppendSystemPrompt   string
	AllowedTools         []string
	DisallowedTools      []string
	MCPConfig            []string
	AddDir               []string
	MaxTurns             int
}

// inputStreamJSON is --input-format stream-json: the Claude Agent SDK's
// protocol on stdin and stdout.
const inputStreamJSON = "stream-json"

// addSDKFlags adds the SDK's flags to the root command's.
func addSDKFlags(f *pflag.FlagSet, o *sdkOptions) {
	f.StringVar(&o.InputFormat, "input-format", "text", "text, or stream-json: the Claude Agent SDK's protocol (JSON messages on stdin and stdout; with --output-format stream-json)")
	f.BoolVar(&o.PartialMessages, "include-partial-messages", false, "stream-json input: stream the answer's deltas as stream_event messages")
	f.StringVar(&o.PermissionPromptTool, "permission-prompt-tool", "", "stream-json input: stdio asks the host (can_use_tool) what the permission mode would ask")
	f.StringVar(&o.AppendSystemPrompt, "append-system-prompt", "", "text appended to a new session's system prompt")
	f.StringSliceVar(&o.AllowedTools, "allowedTools", nil, "tools allowed without asking (agent's names or Claude Code's: Bash, Read, Edit, Write, Grep, Glob)")
	f.StringSliceVar(&o.DisallowedTools, "disallowedTools", nil, "tools denied in every mode")
	f.StringArrayVar(&o.MCPConfig, "mcp-config", nil, "MCP servers as Claude Code's JSON ({\"mcpServers\": {...}}), a file or the JSON itself")
	f.StringArrayVar(&o.AddDir, "add-dir", nil, "accepted for the SDK; agent's tools stay in the working directory")
	f.IntVar(&o.MaxTurns, "max-turns", 0, "most model requests in one turn (--max-steps)")
	for _, n := range []string{"include-partial-messages", "permission-prompt-tool", "allowedTools", "disallowedTools", "add-dir"} {
		_ = f.MarkHidden(n)
	}
}

// sdkMode reports whether args ask for the SDK's protocol.
func sdkMode(args []string) bool {
	for i, a := range args {
		if a == "--input-format="+inputStreamJSON || (a == "--input-format" && i+1 < len(args) && args[i+1] == inputStreamJSON) {
			return true
		}
	}
	return false
}

// allowUnknownSDKFlags lets the SDK's protocol mode ignore the flags
// agent does not know (the SDK adds flags with every release), each with a
// warning on errOut. Other runs keep refusing them.
func allowUnknownSDKFlags(c *cobra.Command, args []string, errOut io.Writer) {
	if !sdkMode(args) {
		return
	}
	c.FParseErrWhitelist.UnknownFlags = true
	for _, a := range args {
		if a == "--" {
			return
		}
		if !strings.HasPrefix(a, "--") {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if c.Flags().Lookup(name) == nil && c.PersistentFlags().Lookup(name) == nil {
			fmt.Fprintf(errOut, "agent: ignoring --%s, which agent does not know (Claude Agent SDK mode)\n", name)
		}
	}
}

// sdkPermissionMode maps the SDK's permission modes onto agent's.
func sdkPermissionMode(m string) (string, error) {
	switch m {
	case "", "default", "dontAsk":
		return modeAsk, nil
	case "acceptEdits", "auto":
		return modeAuto, nil
	case "bypassPermissions":
		return modeYolo, nil
	case modePlan, modeAsk:
		return m, nil
	}
	return "", fmt.Errorf("unknown permission mode %q: use default, acceptEdits, bypassPermissions or plan", m)
}

// sdkModeName is agent's permission mode as the SDK names it (its
// PermissionMode type: default, acceptEdits, bypassPermissions, plan), for
// the system init message.
func sdkModeName(mode string) string {
	switch mode {
	case modeAuto:
		return "acceptEdits"
	case modeYolo:
		return "bypassPermissions"
	case modePlan:
		return "plan"
	}
	return "default"
}

// initModeName is the system init message's permissionMode: the SDK's
// name as given where agent's mode has two (dontAsk, auto), else mode's.
func initModeName(sdkMode, mode string) string {
	if sdkMode == "dontAsk" || sdkMode == "auto" {
		return sdkMode
	}
	return sdkModeName(mode)
}

// toolRules are --allowedTools or --disallowedTools as agent's tool rules
// (a Claude Code name becomes agent's; "Bash(git:*)" allows or denies
// the command "git" and its arguments).
func toolRules(names []string) (toolNames, commands []string) {
	for _, n := range names {
		for _, n := range strings.Fields(n) {
			if base, arg, ok := strings.Cut(n, "("); ok && base == "Bash" {
				commands = append(commands, strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(arg, ")"), "*"), ":"))
				continue
			}
			if m, ok := tools.FromClaude(n); ok {
				n = m
			}
			toolNames = append(toolNames, n)
		}
	}
	return toolNames, commands
}

// runSDKStream runs the Claude Agent SDK's protocol: the session -c or -r
// named (or a new one), a turn per user message until standard input ends.
func runSDKStream(ctx context.Context, o *Options, st Streams, getenv func(string) string) error {
	if o.OutputFormat != formatStreamJSON {
		return usagef("--input-format stream-json needs --output-format stream-json")
	}
	sdkMode := o.PermissionMode
	mode, err := sdkPermissionMode(sdkMode)
	if err != nil {
		return usageError{err}
	}
	o.PermissionMode = mode
	var dontAsk atomic.Bool // the SDK's dontAsk: what is not pre-approved is denied, nobody asked
	dontAsk.Store(sdkMode == "dontAsk")
	if o.SDK.MaxTurns > 0 {
		o.MaxSteps = o.SDK.MaxTurns
	}
	if o.Resume == resumePick {
		return usagef("--resume needs a session id")
	}
	onlyTools := sdkToolsOption(o)
	dir, err := workingDir(o.Dir)
	if err != nil {
		return err
	}
	f, err := openFrontEnd(ctx, o, getenv, dir)
	if err != nil {
		return err
	}
	defer f.Close()
	a := f.a
	warn := func(msg string) { fmt.Fprintln(st.Err, "agent: "+msg) }
	if err := addSDKTools(o, a, warn); err != nil {
		return err
	}
	if onlyTools != nil {
		a.toolDeny = append(a.toolDeny, toolsOutside(a.catalog.Current().Names(), onlyTools)...)
	}
	trust := a.trustStore(o, getenv)
	f.useExtensions(true, headlessHookTrust(trust, a.dir, o.TrustProject, warn), headlessCommandTrust(trust, a.dir, o.TrustProject), warn)
	startHeadlessMCP(ctx, o, st, getenv, f)
	run, err := sdkSession(ctx, o, f, warn)
	if err != nil {
		return err
	}
	f.startSession(ctx, run.record.ID, f.resumed != nil)
	a.plan.set(mode)
	sl := &sdkLoop{}
	var srv *sdkstream.Server
	ap := sdkApproval(o, a, mode, func() *sdkstream.Server { return srv }, &dontAsk)
	newLoop := func(model string) error {
		l, err := a.newLoop(model, f.store.Recorder(run.record.ID), ap.approve)
		if err == nil {
			sl.set(l, model)
		}
		return err
	}
	if err := newLoop(a.settings.Model); err != nil {
		return err
	}
	var mcpNames []string
	for _, c := range a.mcpCfgs {
		mcpNames = append(mcpNames, c.Name)
	}
	srv = sdkstream.New(sdkstream.Config{
		In: st.In, Out: st.Out, Warn: warn, Partial: o.SDK.PartialMessages,
		Init: sdkstream.Init{SessionID: run.record.ID, Model: a.settings.Model, Cwd: a.dir, PermissionMode: initModeName(sdkMode, mode),
			Version: versionString(), Tools: a.catalog.Current().Names(), MCPServers: mcpNames},
		Turn: func(ctx context.Context, p turn.Prompt) <-chan loop.Event {
			return f.turns.Turn(ctx, sl.get(), run.conv, p)
		},
		SetMode: func(m string) error {
			mode, err := sdkPermissionMode(m)
			if err == nil {
				a.plan.set(mode)
				dontAsk.Store(m == "dontAsk")
			}
			return err
		},
		SetModel: func(m string) error {
			if m == "" || m == "default" {
				m = a.settings.Model
			}
			return newLoop(m)
		},
		Price:           tuiPricer(a.settings),
		SetSystemPrompt: sdkSystemPrompt(ctx, o, f, run),
	})
	var first *turn.Prompt
	if o.Prompt != "" {
		p := turn.Text(o.Prompt)
		first = &p
	}
	return srv.Run(ctx, first)
}

// sdkSession is the session -c or -r named, or a new one (whose system
// prompt takes --append-system-prompt); it is released at the front-end's
// Close.
func sdkSession(ctx context.Context, o *Options, f *frontEnd, warn func(string)) (*session, error) {
	run := f.resumed
	if run == nil {
		system := f.a.systemPrompt()
		if o.SDK.AppendSystemPrompt != "" {
			system += "\n\n" + o.SDK.AppendSystemPrompt
		}
		var err error
		if run, err = newSession(ctx, f.store, f.a, f.a.settings.Model, system, ""); err != nil {
			return nil, err
		}
	} else if run.notice != "" {
		warn(run.notice)
	}
	f.release(ctx, run.record.ID)
	return run, nil
}

// sdkApproval is the approval of the SDK's protocol in mode: with
// --permission-prompt-tool stdio, what the policy would ask (and plans,
// and writes of protected paths) goes to the host as can_use_tool;
// without it, it is denied as in any headless run.
func sdkApproval(o *Options, a *agent, mode string, srv func() *sdkstream.Server, dontAsk *atomic.Bool) *approval {
	if o.SDK.PermissionPromptTool != "stdio" {
		a.plan.useDecider(headlessPlan)
		return newApproval(a.policy(mode, o.AllowBash), a.plan.get, headlessAsker{mode: mode})
	}
	ask := sdkAsker{srv: srv, dontAsk: dontAsk}
	a.plan.useDecider(ask.plan)
	ap := newApproval(a.policy(mode, o.AllowBash), a.plan.get, ask)
	ap.guard = a.protect
	return ap
}

// addSDKTools applies --allowedTools, --disallowedTools and --mcp-config.
func addSDKTools(o *Options, a *agent, warn func(string)) error {
	allowTools, allowCmds := toolRules(o.SDK.AllowedTools)
	denyTools, denyCmds := toolRules(o.SDK.DisallowedTools)
	a.toolAllow = append(a.toolAllow, allowTools...)
	a.toolDeny = append(a.toolDeny, denyTools...)
	if len(allowCmds)+len(denyCmds) > 0 {
		allow, _ := splitRules(a.settings.Allow)
		deny, _ := splitRules(a.settings.Deny)
		set, err := rules.Compile(append(allow, allowCmds...), append(deny, denyCmds...))
		if err != nil {
			return usagef("--allowedTools/--disallowedTools: %w", err)
		}
		a.rules = set
	}
	for _, c := range o.SDK.MCPConfig {
		servers, err := claudeMCPConfig(c)
		if err != nil {
			return usageError{err}
		}
		for _, name := range dropInProcess(servers) {
			warn(fmt.Sprintf("MCP server %s runs inside the SDK's process (type sdk), which agent does not reach: its tools are not offered", name))
		}
		cfgs, err := mcpServers(servers, "--mcp-config", a.dir, a.settings.ProviderKeyEnvs, os.Getenv)
		if err != nil {
			return err
		}
		a.mcpCfgs = append(a.mcpCfgs, cfgs...)
	}
	return nil
}

// claudeMCPConfig reads Claude Code's MCP JSON ({"mcpServers": {NAME:
// {command, args, env} | {type: http|sse, url, headers}}}) from a file or
// the text itself.
func claudeMCPConfig(s string) (map[string]mcpServerConfig, error) {
	data := []byte(s)
	if !strings.HasPrefix(strings.TrimSpace(s), "{") {
		var err error
		if data, err = os.ReadFile(s); err != nil {
			return nil, fmt.Errorf("--mcp-config: %w", err)
		}
	}
	servers, err := claudeMCPServers(data)
	if err != nil {
		return nil, fmt.Errorf("--mcp-config: %w", err)
	}
	return servers, nil
}

// claudeMCPServers parses Claude Code's MCP JSON (a project's .mcp.json,
// the SDK's --mcp-config): {"mcpServers": {NAME: {command, args, env} |
// {type: http|sse, url, headers}}}.
func claudeMCPServers(data []byte) (map[string]mcpServerConfig, error) {
	var f struct {
		MCPServers map[string]struct {
			Type    string            `json:"type"`
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			Env     map[string]string `json:"env"`
			URL     string            `json:"url"`
			Headers map[string]string `json:"headers"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, err
	}
	out := map[string]mcpServerConfig{}
	for name, s := range f.MCPServers {
		c := mcpServerConfig{Command: s.Command, Args: s.Args, Env: s.Env, URL: s.URL, Headers: s.Headers}
		if s.Type == "sse" || s.Type == inProcessMCP {
			c.Transport = s.Type
		}
		out[name] = c
	}
	return out, nil
}

// sdkLoop is the loop turns start on; set_model replaces it.
type sdkLoop struct {
	mu    sync.Mutex
	l     *loop.Loop
	model string
}

func (s *sdkLoop) set(l *loop.Loop, model string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.l, s.model = l, model
}

func (s *sdkLoop) get() *loop.Loop {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.l
}

// sdkAsker asks the SDK's host through can_use_tool
// (--permission-prompt-tool stdio). An allow with an updatedInput that
// changes the call's input runs the call with it, once the approval has
// decided the new input again (approval.changedArgs).
type sdkAsker struct {
	srv func() *sdkstream.Server
	// dontAsk, when set, denies what would be asked (the SDK's dontAsk
	// mode) without a can_use_tool request.
	dontAsk *atomic.Bool
}

var _ asker = sdkAsker{}

func (s sdkAsker) ask(ctx context.Context, q question) loop.Decision {
	if s.dontAsk != nil && s.dontAsk.Load() {
		return headlessAsker{mode: "dontAsk"}.ask(ctx, q)
	}
	args := json.RawMessage(q.req.Call.Arguments)
	v, err := s.srv().CanUseTool(ctx, q.def.Name, args, q.req.Call.ID, q.reason)
	if err != nil {
		return loop.Decision{Reason: "The approval request failed: " + err.Error(), Why: "denied: " + err.Error()}
	}
	if !v.Allow {
		msg := v.Message
		if msg == "" {
			msg = "The user denied this call."
		}
		return loop.Decision{Reason: msg, Why: "host: denied"}
	}
	if v.UpdatedInput != nil && !sameJSON(v.UpdatedInput, args) {
		// The approval decides the new arguments again (deny rules,
		// mode); the loop validates them against the tool's schema.
		return loop.Decision{Allow: true, Args: v.UpdatedInput, Why: "host: allowed with changed input"}
	}
	return loop.Decision{Allow: true, Why: "host: allowed"}
}

// plan asks the host about a plan as Claude Code does: can_use_tool for
// ExitPlanMode with the plan.
func (s sdkAsker) plan(ctx context.Context, callID, text string) (plan.Outcome, error) {
	in, _ := json.Marshal(map[string]string{"plan": text})
	v, err := s.srv().CanUseTool(ctx, "ExitPlanMode", in, callID, "")
	if err != nil {
		return plan.Outcome{}, err
	}
	if !v.Allow {
		return plan.Outcome{Feedback: v.Message}, nil
	}
	return plan.Outcome{Approved: true, Mode: modeAsk}, nil
}

// sdkSystemPrompt applies the SDK's systemPrompt and appendSystemPrompt
// (its initialize request carries them) to a new session before its first
// message: a custom prompt replaces agent's (followed by the line on how
// the tools are offered in pick and swap mode, which they need), an
// append (and --append-system-prompt) follows it. A continued session keeps the
// system prompt it has (it is never sent changed), and so does one that
// has messages: both are errors.
func sdkSystemPrompt(ctx context.Context, o *Options, f *frontEnd, run *session) func(custom, appendText string) error {
	return func(custom, appendText string) error {
		if f.resumed != nil {
			return errors.New("a continued session keeps its system prompt")
		}
		system := f.a.systemPrompt()
		if custom != "" { // the host's, with how agent offers its tools
			system = strings.TrimRight(custom+"\n\n"+toolsNote(f.a.settings.Tools), "\n")
		}
		for _, more := range []string{o.SDK.AppendSystemPrompt, appendText} {
			if more = strings.TrimSpace(more); more != "" {
				system += "\n\n" + more
			}
		}
		if err := run.conv.SetSystem(system); err != nil {
			return err
		}
		return f.store.SetSystemPrompt(ctx, run.record.ID, system)
	}
}
