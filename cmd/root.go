// Package cmd holds the cobra commands of agent, its configuration, the
// wiring of provider, tools and loop, and the headless printer.
package cmd

import (
	"context"
	"fmt"
	"github.com/agent-dev/agent/internal/gcfloor"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/internal/version"
	"github.com/agent-dev/agent/providers/profile"
	"github.com/agent-dev/agent/sessions"
	"github.com/agent-dev/agent/worktree"
)

// Options are the flags and arguments of the root command: the settings'
// flags (host.Flags), and what only a front-end reads.
type Options struct {
	host.Flags
	Print        bool
	Prompt       string
	OutputFormat string
	Verbose      bool
	Dir          string
	NoStdin      bool
	// Images are the image files --image attaches to a headless prompt.
	Images       []string
	StdinTimeout time.Duration
	// StdinMaxRead bounds the whole read of standard input from its first
	// byte (hidden flag --stdin-max-read, for tests; default stdinTotal).
	StdinMaxRead time.Duration
	AllowBash    bool
	// TrustProjectMCP starts the MCP servers of the project's .mcp.json
	// in a headless run.
	TrustProjectMCP bool
	// TrustProject runs, in a headless run, what the project defines that
	// runs code: its hooks and its .mcp.json servers.
	TrustProject bool
	// JSONSchema is --json-schema: a JSON Schema, or the file holding
	// one, that the final answer must match ("" for none).
	JSONSchema string
	// ExportSession is --export-session: the file a headless run writes
	// its session to when it ends, as agent sessions export does.
	ExportSession string
	// Continue and Resume pick the session a prompt goes on ("" for
	// Resume: none; resumePick: choose).
	Continue bool
	Resume   string
	// Worktree is --worktree: the name of the git worktree the session
	// works in ("" for none; worktreeAuto: a generated name).
	Worktree string
	// notices takes what the person should know while the run starts (the
	// search index being built); errTTY is whether it is a terminal.
	notices io.Writer
	errTTY  bool
	// exits is Streams.Exits.
	exits bool
	// SDK are the Claude Agent SDK's flags (cmd/sdkstream.go).
	SDK sdkOptions
}

// openHost opens the host of a command with o's flags: the config file
// read once, the settings resolved; preconnect opens the connection to
// the model's server in the background (for the front-ends, which send
// requests).
func openHost(ctx context.Context, o *Options, getenv func(string) string, preconnect bool) (*host.Host, error) {
	return host.Open(ctx, host.Config{Flags: o.Flags, Getenv: getenv, Notices: o.notices, NoticesTTY: o.errTTY, Preconnect: preconnect, Exits: o.exits})
}

// request is the session o's flags name in dir (--continue, --resume; a
// picker's "?" is a new session until the person picks one).
func (o *Options) request(dir string) host.Request {
	r := host.Request{Dir: dir, Continue: o.Continue, Resume: o.Resume, Worktree: worktreeName(o.Worktree, time.Now())}
	if r.Resume == resumePick {
		r.Resume = ""
	}
	return r
}

// openStore opens the session store of o's flags; the caller closes it.
func openStore(ctx context.Context, o *Options, getenv func(string) string) (*sessions.Store, error) {
	h, err := openHost(ctx, o, getenv, false)
	if err != nil {
		return nil, err
	}
	return h.Store(ctx) // the host holds nothing else: closing the store closes all
}

// workingDir returns the absolute working directory: dir, or the current
// directory when dir is empty. It must be an existing directory.
func workingDir(dir string) (string, error) {
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("current directory: %w", err)
		}
		return wd, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", usagef("working directory %s: %w", dir, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", usagef("working directory: %w", err)
	}
	if !fi.IsDir() {
		return "", usagef("working directory %s is not a directory", abs)
	}
	return abs, nil
}

// resumePick is the value of --resume given without an id: the interface
// opens a session picker.
const resumePick = "?"

// Streams are the process's standard streams and what they are connected
// to. Tests replace them.
type Streams struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
	// InPiped is true when standard input is a pipe or a file, never a
	// terminal; only then is it read.
	InPiped       bool
	OutIsTerminal bool
	ErrIsTerminal bool
	// Exits is true when the process ends as the command returns
	// (Execute's streams): the host then leaves the session store to the
	// exit rather than closing it (host.Config.Exits).
	Exits bool
}

// Execute runs the agent command line with the process's streams and
// environment, prints a failure on stderr, and returns the exit code.
// SIGINT, SIGTERM and SIGHUP cancel the running turn (tools are stopped, the
// partial answer printed); a second signal kills the process at once.
// SIGPIPE is caught so that a closed stdout is a write error, not a death
// that would leave a running command behind.
func Execute() int {
	gcfloor.Start()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // restore the default action for the next signal
	}()
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	root := NewRootCmd(osStreams(), os.Getenv, nil)
	allowUnknownSDKFlags(root, os.Args[1:], os.Stderr)
	root.SetArgs(normalizeArgs(os.Args[1:]))
	err := root.ExecuteContext(ctx)
	if err != nil && err.Error() != "" && !brokenPipe(err) {
		fmt.Fprintln(os.Stderr, "agent:", err)
	}
	return exitCode(err)
}

func osStreams() Streams {
	s := Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}
	if fi, err := os.Stdin.Stat(); err == nil {
		s.InPiped = fi.Mode()&os.ModeCharDevice == 0
	}
	s.OutIsTerminal = term.IsTerminal(int(os.Stdout.Fd()))
	s.ErrIsTerminal = term.IsTerminal(int(os.Stderr.Fd()))
	s.Exits = true
	return s
}

// NewRootCmd builds the root command. runF replaces the headless run in
// tests of flag parsing; nil runs the agent.
func NewRootCmd(st Streams, getenv func(string) string, runF func(context.Context, *Options) error) *cobra.Command {
	o := &Options{notices: st.Err, errTTY: st.ErrIsTerminal, exits: st.Exits}
	run := rootRun(o, st, getenv, runF)
	var showVersion bool
	c := &cobra.Command{
		Use:   "agent [PROMPT]",
		Short: "A terminal coding agent",
		Long: `agent talks to a language model that lists, reads and searches the files of the
working directory and, when you allow it, runs commands in it.

  agent                                        open the interface
  agent "Where is the HTTP server started?"    open it and send a prompt
  agent -p "Where is the HTTP server started?" answer once, headless
  git diff | agent -p "review this"
  agent -c                                     continue this directory's latest session
  agent -w fix-parser                          work in a git worktree of its own, on branch agent/fix-parser`,
		Args:          cobra.ArbitraryArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cc *cobra.Command, args []string) error {
			if showVersion {
				_, err := io.WriteString(cc.OutOrStdout(), version.Line(host.Version()))
				return err
			}
			return run(cc, args)
		},
		// A prompt is free text: no file names to complete.
		ValidArgsFunction: cobra.NoFileCompletions,
	}
	c.SetOut(st.Out)
	c.SetErr(st.Err)
	c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{Err: err} })
	// --version is the agent's own flag, not cobra's: cobra prints its
	// version through a text/template, and text/template's method calls by
	// name make the linker keep every exported method of every linked type
	// (about 20 MB of the binary; BENCHMARKS.md, "The binary and package
	// init"). Cobra's annotation keeps its completion quiet after it, as
	// after cobra's own.
	c.Flags().BoolVar(&showVersion, "version", false, "version for agent")
	_ = c.Flags().SetAnnotation("version", cobra.FlagSetByCobraAnnotation, []string{"true"})
	c.PersistentFlags().StringVar(&o.DB, "db", "", "session database (default $XDG_DATA_HOME/agent/agent.db)")
	addRootFlags(c.Flags(), o)
	addSDKFlags(c.Flags(), &o.SDK)
	c.AddCommand(newSessionsCmd(st, getenv, o), newUndoCmd(st, getenv, o, nil), newRewindCmd(st, getenv, o, nil), newDoctorCmd(st, getenv, o), newMCPCmd(st, getenv, o),
		newMemoryCmd(st, getenv, o), newCompletionCmd(c, run), newACPCmd(st, getenv, o), newWorktreeCmd(st, getenv, o), newPluginCmd(st, getenv, o))
	completeFlagValues(c)
	// Only real subcommands may take a first word away from an unquoted
	// prompt: no "help" command ("agent -p help me fix this" is a prompt;
	// --help is the help), and cobra's own completion command is replaced
	// by one that takes only "completion SHELL" (see newCompletionCmd).
	c.CompletionOptions.DisableDefaultCmd = true
	noHelp := &cobra.Command{Use: "no-help-command", Hidden: true}
	c.SetHelpCommand(noHelp)
	// Shell completion offers the help command even when it is hidden; this
	// one is no command to offer.
	c.PersistentPreRun = func(cc *cobra.Command, _ []string) {
		if cc.Name() == cobra.ShellCompRequestCmd {
			c.RemoveCommand(noHelp)
		}
	}
	return c
}

// interactive reports whether a run opens the interface: not with -p, and
// only when stdout is a terminal and stdin is not piped.
func interactive(o *Options, st Streams) bool {
	return !o.Print && st.OutIsTerminal && !st.InPiped
}

// normalizeArgs lets --resume (-r) stand without an id: when it is the last
// argument or another flag follows it, it gets resumePick, so that
// "agent -r" opens the session picker while "agent -r ID" resumes ID. It
// lets --worktree (-w) take its optional name as the next argument when
// that is a valid worktree name ("agent -w fix-parser"); otherwise the
// next argument stays the prompt ("agent -w "fix the parser"").
func normalizeArgs(args []string) []string {
	out := make([]string, 0, len(args)+1)
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(append(out, a), args[i+1:]...)
		}
		if (a == "-w" || a == "--worktree") && i+1 < len(args) && worktree.CheckName(args[i+1]) == nil {
			out = append(out, "--worktree="+args[i+1])
			i++
			continue
		}
		out = append(out, a)
		if (a == "-r" || a == "--resume") && (i == len(args)-1 || strings.HasPrefix(args[i+1], "-")) {
			out = append(out, resumePick)
		}
	}
	return out
}

// addRootFlags adds the root command's flags, each onto its field of o.
func addRootFlags(f *pflag.FlagSet, o *Options) {
	f.BoolVarP(&o.Continue, "continue", "c", false, "continue the most recent session of this directory")
	f.StringVarP(&o.Resume, "resume", "r", "", "resume the session ID (without ID in the interface: choose one)")
	f.BoolVarP(&o.Print, "print", "p", false, "answer the prompt once, print the answer and exit (headless)")
	f.StringVar(&o.OutputFormat, "output-format", formatText, "headless output: text, json or stream-json")
	f.BoolVarP(&o.Verbose, "verbose", "v", false, "show progress (one line per tool call) on stderr even when it is not a terminal")
	f.StringVar(&o.Model, "model", "", "model name (env AGENT_MODEL)")
	f.StringVar(&o.BaseURL, "base-url", "", "API base URL (env OPENAI_BASE_URL or, with --provider anthropic, ANTHROPIC_BASE_URL; default "+profile.DefaultBaseURL+" or "+profile.DefaultAnthropicBaseURL+")")
	f.StringVar(&o.Profile, "profile", "", "provider profile of the config file (env AGENT_PROFILE)")
	f.StringVar(&o.ConfigPath, "config", "", "config file (default $XDG_CONFIG_HOME/agent/config.toml)")
	f.IntVar(&o.MaxSteps, "max-steps", 0, "most model requests in one turn (default 25)")
	addCapFlags(f, &o.Flags)
	f.StringVarP(&o.Dir, "cwd", "C", "", "working directory (default the current directory)")
	f.StringVarP(&o.Worktree, "worktree", "w", "", "work in a git worktree of its own on a new branch agent/NAME (-w NAME; without NAME, or with \"auto\", a generated name), removed at the end unless it holds changes or commits; with -c, go on with its latest session")
	f.Lookup("worktree").NoOptDefVal = worktreeAuto
	f.StringVar(&o.Tools, "tools", "", "how tools are offered: pick (briefs, then full schemas of picked tools) or all (default pick)")
	f.BoolVar(&o.NoStdin, "no-stdin", false, "never read standard input")
	f.StringArrayVar(&o.Images, "image", nil, "headless: attach an image file (PNG, JPEG, GIF, WebP) to the prompt; repeatable")
	f.DurationVar(&o.StdinMaxRead, "stdin-max-read", stdinTotal, "how long piped standard input may take from its first byte")
	_ = f.MarkHidden("stdin-max-read")
	f.DurationVar(&o.StdinTimeout, "stdin-timeout", 2*time.Second, "how long to wait for the first byte of piped standard input before ignoring it (0 waits forever)")
	f.BoolVar(&o.TrustProjectMCP, "trust-project-mcp", false, "headless: start the MCP servers the project's .mcp.json defines (they run the repository's code)")
	f.BoolVar(&o.TrustProject, "trust-project", false, "headless: run what the project defines that runs code: its hooks (.claude/settings.json, .agent/hooks.toml), its custom commands' !command snippets and .mcp.json servers")
	f.StringVar(&o.JSONSchema, "json-schema", "", "headless: the final answer must be one JSON value valid against this JSON Schema (the schema, or a file holding it); stdout gets the value alone")
	f.StringVar(&o.ExportSession, "export-session", "", "headless: when the run ends, write the session to this file as agent sessions export does (JSON)")
	f.BoolVar(&o.AllowBash, "allow-bash", false, "run bash commands without asking (still in the sandbox, still subject to deny rules)")
	f.BoolVar(&o.Yolo, "yolo", false, "no sandbox and no questions (--permission-mode yolo)")
	f.StringVar(&o.PermissionMode, "permission-mode", "", "ask (the interface's default: ask before commands and file changes unless a rule allows), auto (the headless default: commands run in the sandbox and file changes proceed without asking), plan (only read-only tools run; the model proposes a plan with exit_plan_mode), or yolo")
	f.StringVar(&o.Sandbox, "sandbox", "", "what commands may change: workspace-write (default: the working directory and the temporary directory), read-only, or off")
	f.BoolVar(&o.Network, "network", false, "let commands use the network (off by default)")
	f.IntVar(&o.MaxRetries, "max-retries", 4, "retries of a request that failed with 429, 5xx or a connection error")
	f.DurationVar(&o.IdleTimeout, "idle-timeout", 0, "fail a stream that sends nothing for this long (default 90s)")
	f.StringSliceVar(&o.FallbackModels, "fallback-model", nil, "a model the turn moves to when the model is still overloaded, rate limited or failing after its retries: a model of the same server, a profile, or PROFILE:MODEL (repeat or comma-separate for more; replaces the profile's fallback_models)")
	f.StringVar(&o.Provider, "provider", "", "wire protocol of the model server: openai (chat completions, the default), openai-responses (the default for OpenAI's models at api.openai.com) or anthropic (Messages API)")
	f.StringVar(&o.ReasoningEffort, "reasoning-effort", "", "reasoning effort of an openai-responses model: none, minimal, low, medium, high or xhigh")
	f.IntVar(&o.ThinkingBudget, "thinking-budget", 0, "tokens the model may think before answering (anthropic extended thinking; 0 turns it off)")
}

// addCapFlags adds the spend caps' flags (the root command's and agent
// acp's) onto o.
func addCapFlags(f *pflag.FlagSet, o *host.Flags) {
	f.Float64Var(&o.MaxBudgetUSD, "max-budget-usd", 0, "stop the run before a request once it spent this many US dollars, its subagents' included (max_budget_usd; exit code 4)")
	f.IntVar(&o.MaxTokensTotal, "max-tokens-total", 0, "stop the run before a request once it used this many input + output tokens (max_tokens_total; for a model without a price)")
}

// rootRun is the root command's run: it takes the prompt's words after the
// flags are parsed, notes which flags were given, and opens the interface,
// the Claude Agent SDK's protocol or a headless run (runF, when not nil,
// replaces them in tests).
func rootRun(o *Options, st Streams, getenv func(string) string, runF func(context.Context, *Options) error) func(*cobra.Command, []string) error {
	return func(c *cobra.Command, args []string) error {
		o.Prompt = strings.Join(args, " ")
		if !c.Flags().Changed("max-retries") {
			o.MaxRetries = -1
		}
		o.NetworkSet = c.Flags().Changed("network")
		o.ThinkingBudgetSet = c.Flags().Changed("thinking-budget")
		if runF != nil {
			return runF(c.Context(), o)
		}
		switch {
		case interactive(o, st):
			return runInteractive(c.Context(), o, getenv)
		case o.SDK.InputFormat == inputStreamJSON:
			return runSDKStream(c.Context(), o, st, getenv)
		}
		return runHeadless(c.Context(), o, st, getenv)
	}
}
