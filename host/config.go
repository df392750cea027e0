package host

import (
	"cmp"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/agent-dev/agent/budget"
	"github.com/agent-dev/agent/checkpoint"
	"github.com/agent-dev/agent/claudesettings"
	"github.com/agent-dev/agent/hooks"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/lsp"
	"github.com/agent-dev/agent/memory"
	"github.com/agent-dev/agent/providers/profile"
	"github.com/agent-dev/agent/subagent"
	"github.com/agent-dev/agent/telemetry"
	"github.com/agent-dev/agent/tools/background"
	"github.com/agent-dev/agent/tools/mcp"
	"github.com/agent-dev/agent/tools/shell/sandbox"
	"github.com/agent-dev/agent/tools/web"
)

// Flags are what the command line says of the settings; each one set
// wins over the environment and the config file.
type Flags struct {
	// ConfigPath is the config file (--config); "" is
	// $XDG_CONFIG_HOME/agent/config.toml, where a missing file is no
	// configuration.
	ConfigPath string
	Profile    string
	Model      string
	BaseURL    string
	// Provider is the wire protocol (--provider): openai,
	// openai-responses or anthropic; "" takes the profile's.
	Provider string
	// ReasoningEffort is --reasoning-effort (openai-responses); "" takes
	// the profile's.
	ReasoningEffort string
	// ThinkingBudget is --thinking-budget in tokens, which counts only
	// when ThinkingBudgetSet.
	ThinkingBudget    int
	ThinkingBudgetSet bool
	// MaxSteps bounds the model requests of one turn; 0 takes the
	// config's.
	MaxSteps int
	// Tools is how tools are offered: pick, swap or all ("": the config's).
	Tools string
	// MaxRetries is -1 when the flag was not given.
	MaxRetries  int
	IdleTimeout time.Duration
	// FallbackModels is --fallback-model (repeated or comma-separated):
	// they replace the profile's fallback_models; nil takes those.
	FallbackModels []string
	// Sandbox is the sandbox mode (--sandbox); "" takes the config's.
	// Network is --network, which counts only when NetworkSet.
	Sandbox    string
	Network    bool
	NetworkSet bool
	// DB is the session database (--db); "" takes the config's, else
	// $XDG_DATA_HOME/agent/agent.db.
	DB string
	// Yolo is --yolo: no sandbox and no questions (the permission mode
	// yolo).
	Yolo bool
	// PermissionMode is ask, auto, plan or yolo; "" takes the default of
	// the front-end (ask in the interface, auto headless).
	PermissionMode string
	// MaxBudgetUSD is --max-budget-usd, the spend cap in US dollars, and
	// MaxTokensTotal --max-tokens-total, the cap in billable tokens; 0
	// takes the config's (max_budget_usd, max_tokens_total).
	MaxBudgetUSD   float64
	MaxTokensTotal int
}

// fileConfig is the TOML configuration file: a section per feature, each
// resolved by its own package (providers/profile, sandbox, mcp, memory,
// subagent, web, hooks). Example:
//
//	profile = "ollama"          # the profile used when no flag or AGENT_PROFILE names one
//	max_steps = 25
//	tools = "pick"              # or "swap", "all"
//	db_lock_wait = "2m"         # how long a write waits for another process's lock on the session database
//	idle_notification = "60s"   # the interface's wait for a prompt before Notification hooks hear idle_prompt
//	structured_output_retries = 3  # corrections of a final answer that does not match --json-schema
//	max_budget_usd = 5.0        # stop a run once it spent $5, its subagents' included (a profile's own wins)
//	max_tokens_total = 2000000  # or once it used 2M input + output tokens (for a model without a price)
//	model_aliases = { sonnet = "claude-sonnet-4-5" }  # the models Claude Code's files name (a profile's own win)
//
//	[profiles.ollama]
//	base_url = "http://localhost:11434/v1"
//	model = "qwen2.5-coder:7b"
//
//	[profiles.openrouter]
//	base_url = "https://openrouter.ai/api/v1"
//	api_key_env = "OPENROUTER_API_KEY"
//	model = "openai/gpt-4.1-mini"
//
//	[profiles.claude]
//	provider = "anthropic"      # key from ANTHROPIC_API_KEY
//	model = "claude-sonnet-4-5"
//	thinking_budget = 4000      # extended thinking, off by default
//	max_output_tokens = 16000
//	fallback_models = ["claude-haiku-4-5", "openrouter"]  # when the model is overloaded after its retries: a model of this server, a profile, or "PROFILE:MODEL"
//
//	[profiles.gpt]
//	provider = "openai-responses"  # the default for OpenAI's own models at api.openai.com
//	model = "gpt-5"
//	reasoning_effort = "high"   # none, minimal, low, medium, high, xhigh
//	web_search = true           # the provider's server-side web search (also for anthropic)
//
//	[profiles.claude.price]     # USD per million tokens; overrides the table
//	input = 3.0
//	output = 15.0
//	cache_read = 0.3
//	cache_write = 3.75
//
//	[sandbox]
//	mode = "workspace-write"    # or "read-only", "off"
//	network = false
//	writable_roots = ["~/.cache/go-build"]
//	env_passthrough = ["GITHUB_TOKEN"]  # passed to commands although it looks like a secret (env_keep: the same)
//	env_remove = ["CORP_*"]      # never passed to commands
//	deny_read = ["~/.config/corp"]  # also unreadable to commands, beside ~/.ssh, ~/.aws, ~/.netrc...
//	allow_read = ["~/.docker"]   # credential paths commands may read after all
//	max_processes = 1024         # processes (threads) one command may have at once
//	tmp_size_mb = 1024           # the commands' own temporary directory (TMPDIR)
//
//	[background]
//	max_processes = 8           # bash run_in_background processes a session may run at once
//	max_output_mb = 4           # each one's output file in the data directory; the oldest output goes first
//
//	[memory]
//	embeddings = "auto"         # or "off": also search past sessions by meaning (OpenAI-compatible /embeddings)
//	embedding_model = "nomic-embed-text"  # default text-embedding-3-small
//
//	[permissions]
//	allow = ["git status", "go test", "ls", "web_fetch(domain:docs.rs)"]
//	deny = ["rm", "git push", "web_fetch(domain:*.example.com)"]
//
//	[[hooks.PostToolUse]]       # Claude Code's events and matchers
//	matcher = "Edit|Write"
//	command = "gofmt -w \"$(jq -r .tool_input.file_path)\""
//	timeout = 30                # seconds; default 60
//
//	[web_fetch]
//	private_hosts = ["localhost:6060"]  # may be loopback or private (a local docs server); plain http stays http
//
//	[lsp]
//	diagnostics_wait = "2s"     # how long an edit waits for the language servers' new diagnostics
//
//	[lsp.zls]                   # a server of one's own; gopls, typescript-language-server, pyright, rust-analyzer, clangd are found on PATH
//	command = "zls"
//	extensions = [".zig"]
type fileConfig struct {
	// File is the providers' part: profile, profiles, context_window,
	// auto_compact, max_retries, idle_timeout.
	profile.File
	MaxSteps int    `toml:"max_steps"`
	Tools    string `toml:"tools"`
	// IdleNotification is how long the interface waits for a prompt
	// after a turn ended before the Notification hooks hear idle_prompt
	// (a Go duration; default "60s", "0s" never).
	IdleNotification string `toml:"idle_notification"`
	// StructuredOutputRetries is how many times a turn sends a final
	// answer that does not match --json-schema back with the validation
	// error before it fails (default 3; 0: never).
	StructuredOutputRetries *int `toml:"structured_output_retries"`
	// DB is the session database; default $XDG_DATA_HOME/agent/agent.db.
	DB string `toml:"db"`
	// DBLockWait is how long a write to the session database waits while
	// another process holds its write lock (a Go duration; default "2m").
	DBLockWait  string            `toml:"db_lock_wait"`
	Sandbox     sandbox.File      `toml:"sandbox"`
	Permissions permissionsConfig `toml:"permissions"`
	MCP         mcp.File          `toml:"mcp"`
	Subagents   subagent.File     `toml:"subagents"`
	Background  background.File   `toml:"background"`
	Checkpoints checkpoint.File   `toml:"checkpoints"`
	Memory      memory.File       `toml:"memory"`
	// Hooks are the [[hooks.EVENT]] tables (matcher, command, timeout).
	Hooks    map[string][]hooks.TOML `toml:"hooks"`
	WebFetch web.File                `toml:"web_fetch"`
	// Telemetry is the [telemetry] table: OpenTelemetry's export.
	Telemetry telemetry.File `toml:"telemetry"`
	// LSP is the [lsp] table: the language servers ([lsp.NAME]) and the
	// edits' wait for their diagnostics.
	LSP lsp.File `toml:"lsp"`
	// interfaceFile are theme, vim, notifications, notify_after and
	// status_line (interface_config.go).
	interfaceFile
}

// permissionsConfig is the [permissions] table: command rules, each a
// command name and its first arguments ("git status"), matched against
// every command of a command line (see package tools/shell/rules), tool
// rules (mcp__...) and web_fetch's domain rules.
type permissionsConfig struct {
	Allow []string `toml:"allow"`
	Deny  []string `toml:"deny"`
}

// Settings are the resolved configuration of a process, a section per
// feature: flag > environment > config file > default for each.
type Settings struct {
	// Settings are the provider's: its protocol, server, key and model
	// (their fields are Settings' own: s.Model, s.BaseURL).
	profile.Settings
	ConfigPath string
	MaxSteps   int
	Tools      string
	// IdleNotification is the wait before the idle_prompt notification
	// (0: never).
	IdleNotification time.Duration
	// StructuredOutputRetries is how many corrections a turn sends for
	// final answers that do not match the session's answer schema
	// (Request.Schema) before it ends with loop.StopStructuredOutput.
	StructuredOutputRetries int
	Sandbox                 sandbox.Settings
	// Allow and Deny are the rules of [permissions].
	Allow, Deny []string
	// CommandEnv are variables (KEY=VALUE) set in every command's and
	// hook's environment: Claude Code settings' env, per session.
	CommandEnv []string
	// MCPServers is the [mcp.servers] tables, as written (resolved for a
	// working directory when a session opens).
	MCPServers map[string]mcp.ServerDef
	Subagents  subagent.Settings
	// Background bounds the sessions' background processes ([background]).
	Background background.Settings
	// Checkpoints says whether prompts take checkpoints, and their file
	// size cap ([checkpoints]).
	Checkpoints checkpoint.Settings
	// Telemetry is where traces, metrics and logs are exported (off when
	// nothing is configured).
	Telemetry telemetry.Settings
	Memory    memory.Settings
	// Hooks are the config file's [[hooks.EVENT]] hooks.
	Hooks []hooks.Hook
	// Web is web_fetch's configuration ([web_fetch]).
	Web web.Config
	// Limits are the run's spend caps (budget.go); zero caps nothing.
	Limits budget.Limits
	// LSP are the language servers' settings ([lsp]).
	LSP lsp.Settings
	// Interface are the interface's keys: theme, vim keys, notifications,
	// the status line command.
	Interface InterfaceSettings
}

// defaultIdleNotification is how long the interface waits for a prompt
// after a turn before the Notification hooks hear idle_prompt (Claude
// Code's 60 s).
const defaultIdleNotification = 60 * time.Second

// defaultStructuredOutputRetries is structured_output_retries when the
// config file does not set it.
const defaultStructuredOutputRetries = 3

// resolveSettings resolves every section of fc with the flags o and the
// environment, each by its feature's resolve function. Its errors are
// UsageErrors; the last it checks is that a model and a needed API key are
// configured, so that the settings returned with that error are complete
// (agent doctor reads them).
func resolveSettings(fc fileConfig, path string, o *Flags, getenv func(string) string) (Settings, error) {
	s := Settings{ConfigPath: path, Allow: fc.Permissions.Allow, Deny: fc.Permissions.Deny, MCPServers: fc.MCP.Servers}
	where := "config " + path
	var err error
	if s.Settings, err = profile.Resolve(fc.File, path, o.overrides(), getenv); err != nil {
		return s, UsageError{Err: err}
	}
	if err := s.resolveTurns(fc, o, where); err != nil {
		return s, err
	}
	if err := s.resolveLimits(fc, o, where); err != nil {
		return s, err
	}
	if err := s.resolveInterface(fc.interfaceFile, where); err != nil {
		return s, err
	}
	if _, err := mcpServers(s.MCPServers, where, "", nil, getenv); err != nil {
		return s, err
	}
	var network *bool
	if o.NetworkSet {
		network = &o.Network
	}
	home, _ := os.UserHomeDir()
	if s.Sandbox, err = sandbox.Resolve(fc.Sandbox, o.Sandbox, network, home, where); err != nil {
		return s, UsageError{Err: err}
	}
	if s.Web, err = web.ResolveConfig(fc.WebFetch, where); err != nil {
		return s, UsageError{Err: err}
	}
	if s.Memory, err = memory.ResolveSettings(fc.Memory, s.Provider != profile.Anthropic, where); err != nil {
		return s, UsageError{Err: err}
	}
	if s.Subagents, err = subagent.ResolveSettings(fc.Subagents, where); err != nil {
		return s, UsageError{Err: err}
	}
	if s.Checkpoints, err = checkpoint.ResolveSettings(fc.Checkpoints, where); err != nil {
		return s, UsageError{Err: err}
	}
	if s.Background, err = background.ResolveSettings(fc.Background, where); err != nil {
		return s, UsageError{Err: err}
	}
	if s.Telemetry, err = telemetry.Resolve(fc.Telemetry, getenv, where); err != nil {
		return s, UsageError{Err: err}
	}
	if s.LSP, err = lsp.Resolve(fc.LSP, where); err != nil {
		return s, UsageError{Err: err}
	}
	if v := strings.ToLower(getenv("AGENT_LSP")); v == "off" || v == "0" || v == "false" {
		s.LSP.Off = true // a script's run (or a test's) without language servers
	}
	if s.Model == "" && s.Provider == profile.Anthropic {
		s.Model, _ = s.ResolveModel(claudeSettingsModel(home)) // "sonnet" is an alias, as in an agent definition
	}
	if err := s.Ready(path); err != nil {
		return s, UsageError{Err: err}
	}
	return s, nil
}

// claudeSettingsModel is the model Claude Code's settings name for work
// in the current directory (the last file that sets one: the user's, the
// repository's, its local file), for an Anthropic profile that names
// none; "" when none does.
func claudeSettingsModel(home string) string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	files, _ := claudesettings.Load(home, dir)
	model := ""
	for _, f := range files {
		model = cmp.Or(strings.TrimSpace(f.Model), model)
	}
	return model
}

// resolveTurns resolves what bounds and shapes a turn: how tools are
// offered, the step limit, the hooks, the corrections of answers that do
// not match an answer schema, the interface's idle notification.
func (s *Settings) resolveTurns(fc fileConfig, o *Flags, where string) error {
	s.Tools = first(o.Tools, fc.Tools, "pick")
	var err error
	if s.Hooks, err = hooks.FromTOML(fc.Hooks, s.ConfigPath, false); err != nil {
		return usagef("%s: %w", where, err)
	}
	s.MaxSteps = o.MaxSteps
	if s.MaxSteps == 0 {
		s.MaxSteps = fc.MaxSteps
	}
	if s.MaxSteps < 0 {
		return usagef("max steps must be at least 1, got %d", s.MaxSteps)
	}
	if s.MaxSteps == 0 {
		s.MaxSteps = loop.DefaultMaxSteps // the value in force, as -v prints it
	}
	s.StructuredOutputRetries = defaultStructuredOutputRetries
	if r := fc.StructuredOutputRetries; r != nil {
		if *r < 0 {
			return usagef("%s: structured_output_retries = %d: want 0 or more", where, *r)
		}
		s.StructuredOutputRetries = *r
	}
	s.IdleNotification = defaultIdleNotification
	if fc.IdleNotification != "" {
		if s.IdleNotification, err = time.ParseDuration(fc.IdleNotification); err != nil || s.IdleNotification < 0 {
			return usagef("%s: idle_notification = %q: want a duration such as \"60s\" (\"0s\": never)", where, fc.IdleNotification)
		}
	}
	return nil
}

// overrides are the flags' say in the provider's settings.
func (o *Flags) overrides() profile.Overrides {
	return profile.Overrides{Profile: o.Profile, Provider: o.Provider, BaseURL: o.BaseURL, Model: o.Model, ReasoningEffort: o.ReasoningEffort,
		ThinkingBudget: o.ThinkingBudget, ThinkingBudgetSet: o.ThinkingBudgetSet, MaxRetries: o.MaxRetries, IdleTimeout: o.IdleTimeout,
		FallbackModels: o.FallbackModels}
}

// first returns the first non-empty value.
func first(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

// Describe is the settings in one line for -v, without the key.
func (s Settings) Describe() string {
	key := "no API key"
	if s.APIKey != "" {
		key = "API key from " + s.APIKeyEnv
	}
	return fmt.Sprintf("model %s at %s (%s, %s), tools %s, max steps %d", s.Model, s.BaseURL, s.Provider, key, s.Tools, s.MaxSteps)
}
