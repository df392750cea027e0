package host

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/agent-dev/agent/hooks"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/tools/shell/sandbox"
)

// DefaultBaseURL is the OpenAI API, used when nothing else names a server.
const DefaultBaseURL = "https://api.openai.com/v1"

// DefaultAnthropicBaseURL is Anthropic's API, the default server of an
// anthropic profile; requests go to {base_url}/v1/messages.
const DefaultAnthropicBaseURL = "https://api.anthropic.com"

// minThinkingBudget is the smallest extended thinking budget the
// Messages API accepts.
const minThinkingBudget = 1024

// The wire protocols a profile can choose.
const (
	ProviderOpenAI          = "openai"
	ProviderAnthropic       = "anthropic"
	ProviderOpenAIResponses = "openai-responses"
)

// fileConfig is the TOML configuration file. Example:
//
//	profile = "ollama"          # the profile used when no flag or AGENT_PROFILE names one
//	max_steps = 25
//	tools = "pick"              # or "swap", "all"
//	db_lock_wait = "2m"         # how long a write waits for another process's lock on the session database
//	idle_notification = "60s"   # the interface's wait for a prompt before Notification hooks hear idle_prompt
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
type fileConfig struct {
	Profile     string `toml:"profile"`
	MaxSteps    int    `toml:"max_steps"`
	Tools       string `toml:"tools"`
	MaxRetries  *int   `toml:"max_retries"`
	IdleTimeout string `toml:"idle_timeout"`
	// IdleNotification is how long the interface waits for a prompt
	// after a turn ended before the Notification hooks hear idle_prompt
	// (a Go duration; default "60s", "0s" never).
	IdleNotification string `toml:"idle_notification"`
	// DB is the session database; default $XDG_DATA_HOME/agent/agent.db.
	DB string `toml:"db"`
	// DBLockWait is how long a write to the session database waits while
	// another process holds its write lock (a Go duration; default "2m").
	DBLockWait string `toml:"db_lock_wait"`
	// ContextWindow is the model's context window in tokens; a profile's
	// own wins.
	ContextWindow int `toml:"context_window"`
	// AutoCompact is the share of the context window (0 to 1) past which
	// the conversation is compacted before a request; 0 turns automatic
	// compaction off. Unset: DefaultAutoCompact. A profile's own wins.
	AutoCompact *float64           `toml:"auto_compact"`
	Profiles    map[string]profile `toml:"profiles"`
	Sandbox     sandboxConfig      `toml:"sandbox"`
	Permissions permissionsConfig  `toml:"permissions"`
	MCP         mcpConfig          `toml:"mcp"`
	Subagents   subagentsConfig    `toml:"subagents"`
	Memory      memoryConfig       `toml:"memory"`
	// Hooks are the [[hooks.EVENT]] tables (matcher, command, timeout).
	Hooks    map[string][]hooks.TOML `toml:"hooks"`
	WebFetch webFetchConfig          `toml:"web_fetch"`
}

// webFetchConfig is the [web_fetch] table.
type webFetchConfig struct {
	// PrivateHosts are hosts ("docs.internal", "localhost:6060") that
	// web_fetch may reach although they resolve to loopback or private
	// addresses; http to them is not upgraded.
	PrivateHosts []string `toml:"private_hosts"`
}

// subagentsConfig is the [subagents] table: how many task calls' children
// run at once (0: subagent.DefaultMaxParallel).
type subagentsConfig struct {
	MaxParallel int `toml:"max_parallel"`
}

// memoryConfig is the [memory] table: whether memory_search also ranks
// past sessions by meaning, with the provider's embeddings endpoint.
type memoryConfig struct {
	// Embeddings is "auto" (the default: on while the endpoint answers)
	// or "off".
	Embeddings string `toml:"embeddings"`
	// EmbeddingModel is the embedding model; "" for
	// memory.DefaultEmbeddingModel.
	EmbeddingModel string `toml:"embedding_model"`
}

// permissionsConfig is the [permissions] table: command rules, each a
// command name and its first arguments ("git status"), matched against
// every command of a command line (see package tools/shell/rules).
type permissionsConfig struct {
	Allow []string `toml:"allow"`
	Deny  []string `toml:"deny"`
}

// profile names one model server and how to authenticate to it.
type profile struct {
	BaseURL string `toml:"base_url"`
	// APIKeyEnv is the name of the environment variable holding the key
	// (never the key itself); default OPENAI_API_KEY, or ANTHROPIC_API_KEY
	// for an anthropic profile.
	APIKeyEnv string `toml:"api_key_env"`
	Model     string `toml:"model"`
	// ContextWindow and AutoCompact override the top-level settings for
	// this profile's model.
	ContextWindow int      `toml:"context_window"`
	AutoCompact   *float64 `toml:"auto_compact"`
	// Provider is the wire protocol: openai (default) or anthropic.
	Provider string `toml:"provider"`
	// ThinkingBudget is the extended thinking budget in tokens; 0 is off.
	ThinkingBudget int `toml:"thinking_budget"`
	// MaxOutputTokens bounds each response; 0 takes the adapter's default.
	MaxOutputTokens int `toml:"max_output_tokens"`
	// Price overrides the price table for the profile's model.
	Price *priceConfig `toml:"price"`
	// ReasoningEffort is OpenAI Responses' reasoning.effort; "" leaves it
	// to the model.
	ReasoningEffort string `toml:"reasoning_effort"`
	// WebSearch offers the provider's server-side web search tool
	// (anthropic, openai-responses).
	WebSearch bool `toml:"web_search"`
	// Images says whether the profile's models take images; unset asks
	// the table of common models (providers.TakesImages).
	Images *bool `toml:"images"`
}

// priceConfig is a [profiles.x.price] table: USD per million tokens.
type priceConfig struct {
	Input      float64 `toml:"input"`
	Output     float64 `toml:"output"`
	CacheRead  float64 `toml:"cache_read"`
	CacheWrite float64 `toml:"cache_write"`
}

// DefaultAutoCompact is the share of the context window past which the
// conversation is compacted when the config file says nothing.
const DefaultAutoCompact = 0.8

// Settings are the resolved configuration of a process: flag >
// environment > config file > default for each.
type Settings struct {
	Profile string
	// Provider is the wire protocol: ProviderOpenAI or ProviderAnthropic.
	Provider  string
	BaseURL   string
	APIKey    string
	APIKeyEnv string
	// ProviderKeyEnvs are the variables that hold a provider's key: the
	// OpenAI and Anthropic ones, APIKeyEnv and every profile's
	// api_key_env. A project's MCP server never gets them.
	ProviderKeyEnvs []string
	Model           string
	MaxSteps        int
	Tools           string
	MaxRetries      int
	IdleTimeout     time.Duration
	// IdleNotification is the wait before the idle_prompt notification
	// (0: never).
	IdleNotification time.Duration
	ConfigPath       string
	// ContextWindow is the model's window in tokens from the config file
	// (the profile's, else the top level's); 0 looks the model up in a
	// table of common models.
	ContextWindow int
	// AutoCompact is the share of the window past which the conversation
	// is compacted, 0 for never (auto_compact).
	AutoCompact float64
	// Sandbox is the sandbox mode (--sandbox, else [sandbox] mode); Network
	// whether commands may use the network; WritableRoots the extra
	// writable directories, absolute.
	Sandbox       sandbox.Mode
	Network       bool
	WritableRoots []string
	// EnvKeep and EnvRemove change which variables commands do not get
	// ([sandbox] env_keep, env_remove).
	EnvKeep, EnvRemove []string
	// Credentials are the files and directories commands may not read
	// (the defaults, [sandbox] deny_read added, allow_read removed),
	// absolute.
	Credentials []string
	// MaxProcesses bounds one command's processes; TmpSize its own
	// temporary directory, in bytes (0: the host's /tmp, listed in
	// writable_roots, is used instead).
	MaxProcesses int
	TmpSize      int64
	// Allow and Deny are the command rules of [permissions].
	Allow, Deny []string
	// ThinkingBudget is the extended thinking budget in tokens (0: off);
	// MaxOutputTokens bounds each response (0: the adapter's default).
	ThinkingBudget  int
	MaxOutputTokens int
	// Price is the profile's price override, nil to use the table.
	Price *priceConfig
	// ReasoningEffort is reasoning.effort for openai-responses ("": the
	// model's default); WebSearch offers the provider's web search tool.
	ReasoningEffort string
	WebSearch       bool
	// MCPServers is the [mcp.servers] tables, as written (resolved for a
	// working directory by newAgent).
	MCPServers map[string]MCPServer
	// MaxParallel bounds the subagents running at once ([subagents]
	// max_parallel; 0 is the default).
	MaxParallel int
	// Embeddings is whether memory search also uses the provider's
	// embeddings endpoint ("auto"; "off", and always off with Anthropic,
	// which serves none); EmbeddingModel the model ("" for the default).
	Embeddings, EmbeddingModel string
	// Hooks are the config file's [[hooks.EVENT]] hooks.
	Hooks []hooks.Hook
	// WebPrivateHosts are [web_fetch] private_hosts.
	WebPrivateHosts []string
	// Images is the profile's images setting; nil asks the table.
	Images *bool
}

// defaultConfigPath is $XDG_CONFIG_HOME/agent/config.toml, or
// ~/.config/agent/config.toml when XDG_CONFIG_HOME is unset.
func defaultConfigPath(getenv func(string) string) string {
	dir := getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "agent", "config.toml")
}

// loadFileConfig reads the config file at path. A missing file is an empty
// configuration unless the person named it explicitly.
func loadFileConfig(path string, explicit bool) (fileConfig, error) {
	var fc fileConfig
	if path == "" {
		return fc, nil
	}
	md, err := toml.DecodeFile(path, &fc)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && !explicit {
			return fc, nil
		}
		return fc, usagef("config %s: %w", path, err)
	}
	if undec := md.Undecoded(); len(undec) > 0 {
		keys := make([]string, len(undec))
		for i, k := range undec {
			keys[i] = k.String()
		}
		return fc, usagef("config %s: unknown keys: %s", path, strings.Join(keys, ", "))
	}
	return fc, nil
}

// resolveSettings applies the precedence flag > environment > config file >
// default to every setting. It returns a usage error that says exactly what
// to set when no model or no needed API key is configured.
func resolveSettings(fc fileConfig, path string, o *Flags, getenv func(string) string) (Settings, error) {
	var err error
	s := Settings{ConfigPath: path}

	s.Profile = first(o.Profile, getenv("AGENT_PROFILE"), fc.Profile)
	if s.Profile == "" && len(fc.Profiles) == 1 {
		for name := range fc.Profiles {
			s.Profile = name
		}
	}
	var p profile
	if s.Profile != "" {
		var ok bool
		if p, ok = fc.Profiles[s.Profile]; !ok {
			names := make([]string, 0, len(fc.Profiles))
			for n := range fc.Profiles {
				names = append(names, n)
			}
			slices.Sort(names)
			return s, usagef("profile %q is not in %s (profiles there: %s)", s.Profile, path, strings.Join(names, ", "))
		}
	}

	s.Provider = first(o.Provider, p.Provider, ProviderOpenAI)
	keyEnv, urlEnv, defaultURL := "OPENAI_API_KEY", "OPENAI_BASE_URL", DefaultBaseURL
	switch s.Provider {
	case ProviderOpenAI, ProviderOpenAIResponses:
	case ProviderAnthropic:
		keyEnv, urlEnv, defaultURL = "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", DefaultAnthropicBaseURL
	default:
		if o.Provider != "" {
			return s, usagef("--provider %q: want openai, openai-responses or anthropic", s.Provider)
		}
		return s, usagef("config %s: profile %q: provider %q: want openai, openai-responses or anthropic", path, s.Profile, s.Provider)
	}
	s.APIKeyEnv = first(p.APIKeyEnv, keyEnv)
	s.ProviderKeyEnvs = []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", s.APIKeyEnv}
	for _, prof := range fc.Profiles {
		if prof.APIKeyEnv != "" && !slices.Contains(s.ProviderKeyEnvs, prof.APIKeyEnv) {
			s.ProviderKeyEnvs = append(s.ProviderKeyEnvs, prof.APIKeyEnv)
		}
	}
	// The base URL variable belongs with its key variable: a profile whose
	// key lives in another variable keeps its own server, so its key is
	// never sent to a server chosen for a different key.
	envURL := getenv(urlEnv)
	if s.APIKeyEnv != keyEnv {
		envURL = ""
	}
	s.BaseURL = strings.TrimRight(first(o.BaseURL, envURL, p.BaseURL, defaultURL), "/")
	if u, err := url.Parse(s.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return s, usagef("base URL %q is not an http(s) URL", s.BaseURL)
	}
	s.Model = first(o.Model, getenv("AGENT_MODEL"), p.Model)
	s.APIKey = getenv(s.APIKeyEnv)
	if o.Provider == "" && p.Provider == "" && prefersResponses(s.BaseURL, s.Model) {
		s.Provider = ProviderOpenAIResponses
	}

	s.ContextWindow = cmp.Or(p.ContextWindow, fc.ContextWindow)
	if s.ContextWindow < 0 {
		return s, usagef("config %s: context_window must be a number of tokens, got %d", path, s.ContextWindow)
	}
	s.AutoCompact = DefaultAutoCompact
	for _, v := range []*float64{fc.AutoCompact, p.AutoCompact} {
		if v != nil {
			s.AutoCompact = *v
		}
	}
	if s.AutoCompact < 0 || s.AutoCompact > 1 {
		return s, usagef("config %s: auto_compact must be a share of the context window from 0 (off) to 1, got %g", path, s.AutoCompact)
	}

	s.Tools = first(o.Tools, fc.Tools, "pick")
	if s.Hooks, err = hooks.FromTOML(fc.Hooks, path, false); err != nil {
		return s, usagef("config %s: %w", path, err)
	}
	if s.MaxParallel = fc.Subagents.MaxParallel; s.MaxParallel < 0 {
		return s, usagef("config %s: [subagents] max_parallel must be a positive number, got %d", path, s.MaxParallel)
	}
	s.MaxSteps = o.MaxSteps
	if s.MaxSteps == 0 {
		s.MaxSteps = fc.MaxSteps
	}
	if s.MaxSteps < 0 {
		return s, usagef("max steps must be at least 1, got %d", s.MaxSteps)
	}
	if s.MaxSteps == 0 {
		s.MaxSteps = loop.DefaultMaxSteps // the value in force, as -v prints it
	}
	s.MaxRetries = 4
	if fc.MaxRetries != nil {
		s.MaxRetries = *fc.MaxRetries
	}
	if o.MaxRetries >= 0 {
		s.MaxRetries = o.MaxRetries
	}
	s.IdleTimeout = o.IdleTimeout
	if s.IdleTimeout == 0 && fc.IdleTimeout != "" {
		if s.IdleTimeout, err = time.ParseDuration(fc.IdleTimeout); err != nil {
			return s, usagef("config %s: idle_timeout: %w", path, err)
		}
	}
	s.IdleNotification = defaultIdleNotification
	if fc.IdleNotification != "" {
		if s.IdleNotification, err = time.ParseDuration(fc.IdleNotification); err != nil || s.IdleNotification < 0 {
			return s, usagef("config %s: idle_notification = %q: want a duration such as \"60s\" (\"0s\": never)", path, fc.IdleNotification)
		}
	}

	s.ThinkingBudget, s.MaxOutputTokens, s.Price = p.ThinkingBudget, p.MaxOutputTokens, p.Price
	s.Images = p.Images
	if o.ThinkingBudgetSet {
		s.ThinkingBudget = o.ThinkingBudget
	}
	if s.ThinkingBudget < 0 || s.MaxOutputTokens < 0 {
		return s, usagef("thinking budget and max output tokens must not be negative")
	}
	switch {
	case s.ThinkingBudget > 0 && s.Provider != ProviderAnthropic:
		return s, usagef("a thinking budget needs provider anthropic (the openai protocol has no thinking budget)")
	case s.ThinkingBudget > 0 && s.ThinkingBudget < minThinkingBudget:
		return s, usagef("thinking budget %d is below the API's minimum of %d tokens", s.ThinkingBudget, minThinkingBudget)
	case s.ThinkingBudget > 0 && s.MaxOutputTokens > 0 && s.MaxOutputTokens <= s.ThinkingBudget:
		return s, usagef("max_output_tokens (%d) must exceed the thinking budget (%d): thinking counts as output", s.MaxOutputTokens, s.ThinkingBudget)
	}

	if err := resolveResponses(&s, o, p); err != nil {
		return s, err
	}

	s.MCPServers = fc.MCP.Servers
	if _, err := mcpServers(s.MCPServers, "config "+path, "", nil, getenv); err != nil {
		return s, err
	}

	if err := resolveSandbox(&s, o, fc, path); err != nil {
		return s, err
	}
	s.Embeddings, s.EmbeddingModel = first(fc.Memory.Embeddings, "auto"), fc.Memory.EmbeddingModel
	if s.Embeddings != "auto" && s.Embeddings != "off" {
		return s, usagef("config %s: memory: embeddings %q: want auto or off", path, s.Embeddings)
	}
	if s.Provider == ProviderAnthropic {
		s.Embeddings = "off"
	}

	if s.Model == "" {
		return s, usagef("no model configured: pass --model NAME, set AGENT_MODEL, or set model in a profile of %s", path)
	}
	if s.APIKey == "" && !isLocal(s.BaseURL) {
		if s.Provider == ProviderAnthropic {
			return s, usagef("no API key for %s: set %s (or use a local server with --base-url http://localhost:PORT)", s.BaseURL, s.APIKeyEnv)
		}
		return s, usagef("no API key for %s: set %s (or use a local server with --base-url http://localhost:PORT/v1)", s.BaseURL, s.APIKeyEnv)
	}
	return s, nil
}

// isLocal reports whether baseURL names this machine (localhost or a
// loopback address), where servers usually need no API key.
func isLocal(baseURL string) bool {
	u, err := url.Parse(baseURL)
	if err != nil {
		return false
	}
	host := u.Hostname()
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
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
