package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/sdkstream"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/mcp"
	"github.com/agent-dev/agent/tools/plan"
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
	// ReplayUserMessages is --replay-user-messages: each user message is
	// echoed back with its uuid (the SDK's extraArgs
	// {"replay-user-messages": null}).
	ReplayUserMessages bool
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
	f.BoolVar(&o.ReplayUserMessages, "replay-user-messages", false, "stream-json input: echo each user message back with its uuid, which rewind_files takes")
	for _, n := range []string{"include-partial-messages", "permission-prompt-tool", "allowedTools", "disallowedTools", "add-dir", "replay-user-messages"} {
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
		return host.ModeAsk, nil
	case "acceptEdits", "auto":
		return host.ModeAuto, nil
	case "bypassPermissions":
		return host.ModeYolo, nil
	case host.ModePlan, host.ModeAsk:
		return m, nil
	}
	return "", fmt.Errorf("unknown permission mode %q: use default, acceptEdits, bypassPermissions or plan", m)
}

// sdkModeName is agent's permission mode as the SDK names it (its
// PermissionMode type: default, acceptEdits, bypassPermissions, plan), for
// the system init message.
func sdkModeName(mode string) string {
	switch mode {
	case host.ModeAuto:
		return "acceptEdits"
	case host.ModeYolo:
		return "bypassPermissions"
	case host.ModePlan:
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
// named (or a new one), a turn per user message until standard input ends;
// with --export-session it then writes the session, whatever the outcome.
// --json-schema (the SDK's outputFormat) holds for every turn.
func runSDKStream(ctx context.Context, o *Options, st Streams, getenv func(string) string) (err error) {
	if o.OutputFormat != formatStreamJSON {
		return usagef("--input-format stream-json needs --output-format stream-json")
	}
	if o.Resume == resumePick {
		return usagef("--resume needs a session id")
	}
	sdkMode := o.PermissionMode
	mode, err := sdkPermissionMode(sdkMode)
	if err != nil {
		return usageError{Err: err}
	}
	o.PermissionMode = mode
	if o.SDK.MaxTurns > 0 {
		o.MaxSteps = o.SDK.MaxTurns
	}
	only := sdkToolsOption(o)
	schema, err := answerSchema(o.JSONSchema)
	if err != nil {
		return err
	}
	dir, err := workingDir(o.Dir)
	if err != nil {
		return err
	}
	warn := func(msg string) { fmt.Fprintln(st.Err, "agent: "+msg) }
	var srv *sdkstream.Server
	var dontAsk atomic.Bool // the SDK's dontAsk: what is not pre-approved is denied, nobody asked
	dontAsk.Store(sdkMode == "dontAsk")
	fe, err := sdkFrontEnd(o, mode, warn)
	if err != nil {
		return err
	}
	fe.Rules.Only = only
	if o.SDK.PermissionPromptTool == "stdio" {
		ask := sdkAsker{srv: func() *sdkstream.Server { return srv }, dontAsk: &dontAsk}
		fe.Asker, fe.Plan = ask, ask.plan
	}
	h, err := openHost(ctx, o, getenv, true)
	if err != nil {
		return err
	}
	defer h.Close()
	req := o.request(dir)
	req.AppendSystem, req.Schema = o.SDK.AppendSystemPrompt, schema
	sess, err := h.OpenSession(ctx, req, fe)
	if err != nil {
		return err
	}
	defer sess.Close()
	defer func() { err = exportAtEnd(ctx, o, sess, st.Err, err) }()
	for _, n := range sess.Notices() {
		warn(n)
	}
	srv = newSDKServer(ctx, o, st, h, sess, initModeName(sdkMode, mode), &dontAsk, warn, sdkCheckpointing(getenv))
	var first *turn.Prompt
	if o.Prompt != "" {
		p := turn.Text(o.Prompt)
		first = &p
	}
	return srv.Run(ctx, first)
}

// newSDKServer is the protocol's server over sess: system init's message
// (permissionMode as the SDK named it), turns, and the control requests
// that switch the mode (dontAsk too), the model and the system prompt,
// and, with checkpointing (the SDK's enableFileCheckpointing), rewind the
// files.
func newSDKServer(ctx context.Context, o *Options, st Streams, h *host.Host, sess *host.Session, initMode string, dontAsk *atomic.Bool,
	warn func(string), checkpointing bool) *sdkstream.Server {
	s := sess.Settings()
	var rewind func(context.Context, string, bool) (sdkstream.FilesRewound, error)
	if checkpointing {
		rewind = sdkRewinder(sess)
	}
	return sdkstream.New(sdkstream.Config{
		ReplayUserMessages: o.SDK.ReplayUserMessages, RewindFiles: rewind,
		In: st.In, Out: st.Out, Warn: warn, Partial: o.SDK.PartialMessages,
		Init: sdkstream.Init{SessionID: sess.ID(), Model: s.Model, Cwd: sess.Dir(), PermissionMode: initMode,
			Version: host.Version(), Tools: sess.ToolNames(), MCPServers: sess.MCPServers(),
			SlashCommands: commandNames(sess.Commands()), Agents: sess.Agents(), Skills: sess.Skills()},
		Turn: sess.Turn,
		SetMode: func(m string) error {
			mode, err := sdkPermissionMode(m)
			if err == nil {
				err = sess.SetMode(mode)
				dontAsk.Store(m == "dontAsk")
			}
			return err
		},
		SetModel: sess.SetModel,
		Price:    h.Pricer(),
		SetSystemPrompt: func(custom, appendText string) error {
			return sess.SetSystemPrompt(ctx, custom, o.SDK.AppendSystemPrompt, appendText)
		},
	})
}

// sdkFrontEnd is the SDK protocol's front-end but for its asker: the
// rules of --allowedTools and --disallowedTools, the servers of
// --mcp-config (the SDK's in-process ones left out, with a warning), and a
// repository's hooks and servers as a headless run has them.
func sdkFrontEnd(o *Options, mode string, warn func(string)) (host.FrontEnd, error) {
	allowTools, allowCmds := toolRules(o.SDK.AllowedTools)
	denyTools, denyCmds := toolRules(o.SDK.DisallowedTools)
	fe := host.FrontEnd{Name: "sdk", Mode: mode, AllowBash: o.AllowBash, Warn: warn,
		Trust: host.Trust{Hooks: o.TrustProject, MCP: o.TrustProjectMCP || o.TrustProject},
		Rules: host.Rules{AllowTools: allowTools, DenyTools: denyTools, AllowCommands: allowCmds, DenyCommands: denyCmds}}
	for _, c := range o.SDK.MCPConfig {
		servers, err := claudeMCPConfig(c)
		if err != nil {
			return fe, usageError{Err: err}
		}
		for _, name := range dropInProcess(servers) {
			warn(fmt.Sprintf("MCP server %s runs inside the SDK's process (type sdk), which agent does not reach: its tools are not offered", name))
		}
		if fe.MCP.Servers == nil {
			fe.MCP.Servers, fe.MCP.Where = map[string]mcp.ServerDef{}, "--mcp-config"
		}
		maps.Copy(fe.MCP.Servers, servers)
	}
	return fe, nil
}

// claudeMCPConfig reads Claude Code's MCP JSON ({"mcpServers": {NAME:
// {command, args, env} | {type: http|sse, url, headers}}}) from a file or
// the text itself.
func claudeMCPConfig(s string) (map[string]mcp.ServerDef, error) {
	data := []byte(s)
	if !strings.HasPrefix(strings.TrimSpace(s), "{") {
		var err error
		if data, err = os.ReadFile(s); err != nil {
			return nil, fmt.Errorf("--mcp-config: %w", err)
		}
	}
	servers, err := mcp.ParseClaudeJSON(data)
	if err != nil {
		return nil, fmt.Errorf("--mcp-config: %w", err)
	}
	return servers, nil
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

var _ host.Asker = sdkAsker{}

func (s sdkAsker) Ask(ctx context.Context, q host.Question) loop.Decision {
	if s.dontAsk != nil && s.dontAsk.Load() {
		return host.Refusal("dontAsk").Ask(ctx, q)
	}
	args := json.RawMessage(q.Req.Call.Arguments)
	v, err := s.srv().CanUseTool(ctx, q.Def.Name, args, q.Req.Call.ID, q.Reason)
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
	if v.UpdatedInput != nil && !host.SameJSON(v.UpdatedInput, args) {
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
	return plan.Outcome{Approved: true, Mode: host.ModeAsk}, nil
}

// sdkCheckpointing reports whether the SDK asked for file checkpointing:
// its enableFileCheckpointing option sets
// CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING=true in the environment.
func sdkCheckpointing(getenv func(string) string) bool {
	v := strings.ToLower(strings.TrimSpace(getenv("CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING")))
	return v == "true" || v == "1"
}

// sdkRewinder answers rewind_files on sess: the code (only) goes back to
// the checkpoint of the prompt whose uuid is id, the files its commands
// changed included; files changed outside the agent since are kept. The
// files are named by absolute path, as Claude Code's file tools name them.
func sdkRewinder(sess *host.Session) func(context.Context, string, bool) (sdkstream.FilesRewound, error) {
	return func(ctx context.Context, id string, dryRun bool) (sdkstream.FilesRewound, error) {
		res, err := sess.Rewind(ctx, host.RewindRequest{To: id, Scope: host.ScopeCode, DryRun: dryRun})
		if err != nil {
			return sdkstream.FilesRewound{}, err
		}
		changes := res.Restored
		if dryRun {
			changes = res.Plan.Changes
		}
		var out sdkstream.FilesRewound
		for _, c := range changes {
			out.Files = append(out.Files, filepath.Join(sess.Dir(), filepath.FromSlash(c.Path)))
			out.Insertions += c.Added
			out.Deletions += c.Removed
		}
		return out, nil
	}
}

// commandNames are the names of cmds, without their slash.
func commandNames(cmds []host.Command) []string {
	out := make([]string, len(cmds))
	for i, c := range cmds {
		out[i] = c.Name
	}
	return out
}
