// Package profile is the providers' section of the settings: which model
// server a run talks to, in which wire protocol, with which key and
// model, and how its requests are bounded. It reads the config file's
// profiles (File), applies the command line's overrides and the
// environment (Resolve), and builds the provider (New): the one place that
// knows the adapters.
package profile

import (
	"cmp"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"
)

// The wire protocols a profile can choose.
const (
	OpenAI          = "openai"
	Anthropic       = "anthropic"
	OpenAIResponses = "openai-responses"
)

// DefaultBaseURL is the OpenAI API, used when nothing else names a server.
const DefaultBaseURL = "https://api.openai.com/v1"

// DefaultAnthropicBaseURL is Anthropic's API, the default server of an
// anthropic profile; requests go to {base_url}/v1/messages.
const DefaultAnthropicBaseURL = "https://api.anthropic.com"

// DefaultAutoCompact is the share of the context window past which the
// conversation is compacted when the config file says nothing.
const DefaultAutoCompact = 0.8

// minThinkingBudget is the smallest extended thinking budget the
// Messages API accepts, in tokens.
const minThinkingBudget = 1024

// File is the providers' part of the config file, at its top level:
//
//	profile = "ollama"          # the profile used when no flag or AGENT_PROFILE names one
//	context_window = 128000     # tokens; a profile's own wins
//	auto_compact = 0.8          # share of the window; 0 turns automatic compaction off
//	max_retries = 4
//	idle_timeout = "90s"
//
//	[profiles.ollama]
//	base_url = "http://localhost:11434/v1"
//	model = "qwen2.5-coder:7b"
type File struct {
	Profile     string `toml:"profile"`
	MaxRetries  *int   `toml:"max_retries"`
	IdleTimeout string `toml:"idle_timeout"`
	// ContextWindow is the model's context window in tokens; a profile's
	// own wins.
	ContextWindow int `toml:"context_window"`
	// AutoCompact is the share of the context window (0 to 1) past which
	// the conversation is compacted before a request; 0 turns automatic
	// compaction off. Unset: DefaultAutoCompact. A profile's own wins.
	AutoCompact *float64           `toml:"auto_compact"`
	Profiles    map[string]Profile `toml:"profiles"`
	// MaxBudgetUSD and MaxTokensTotal are the spend caps of a run (US
	// dollars; billable input and output tokens); a profile's own win,
	// --max-budget-usd and --max-tokens-total win over both. The host
	// resolves them (package budget).
	MaxBudgetUSD   *float64 `toml:"max_budget_usd"`
	MaxTokensTotal *int     `toml:"max_tokens_total"`
	// ModelAliases map the model names Claude Code's files use (sonnet,
	// opus, haiku; any name) to this run's models; a profile's own entries
	// win (see Settings.ResolveModel).
	ModelAliases map[string]string `toml:"model_aliases"`
}

// Profile is a [profiles.NAME] table: one model server and how to
// authenticate to it.
type Profile struct {
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
	// Provider is the wire protocol: openai (default), openai-responses
	// or anthropic.
	Provider string `toml:"provider"`
	// ThinkingBudget is the extended thinking budget in tokens; 0 is off.
	ThinkingBudget int `toml:"thinking_budget"`
	// MaxOutputTokens bounds each response; 0 takes the adapter's default.
	MaxOutputTokens int `toml:"max_output_tokens"`
	// Price overrides the price table for the profile's model.
	Price *Price `toml:"price"`
	// ReasoningEffort is OpenAI Responses' reasoning.effort; "" leaves it
	// to the model.
	ReasoningEffort string `toml:"reasoning_effort"`
	// WebSearch offers the provider's server-side web search tool
	// (anthropic, openai-responses).
	WebSearch bool `toml:"web_search"`
	// Images says whether the profile's models take images; unset asks
	// the table of common models (providers.TakesImages).
	Images *bool `toml:"images"`
	// MaxBudgetUSD and MaxTokensTotal override the top-level spend caps
	// for this profile (see File).
	MaxBudgetUSD   *float64 `toml:"max_budget_usd"`
	MaxTokensTotal *int     `toml:"max_tokens_total"`
	// ModelAliases override the top-level model_aliases for this profile.
	ModelAliases map[string]string `toml:"model_aliases"`
	// FallbackModels are the models a turn moves to, in order, when the
	// profile's model still fails with an overload, a rate limit or a
	// server error after the retries (Claude Code's fallbackModel, a
	// list): a model of the same server, a profile's name, or
	// "PROFILE:MODEL".
	FallbackModels []string `toml:"fallback_models"`
}

// Price is a [profiles.NAME.price] table: US dollars per million tokens.
type Price struct {
	Input      float64 `toml:"input"`
	Output     float64 `toml:"output"`
	CacheRead  float64 `toml:"cache_read"`
	CacheWrite float64 `toml:"cache_write"`
}

// Overrides are the command line's say: each one set wins over the
// environment and the config file.
type Overrides struct {
	Profile, Provider, BaseURL, Model, ReasoningEffort string
	// ThinkingBudget counts only when ThinkingBudgetSet.
	ThinkingBudget    int
	ThinkingBudgetSet bool
	// MaxRetries is -1 when not given; IdleTimeout 0.
	MaxRetries  int
	IdleTimeout time.Duration
	// FallbackModels (--fallback-model) replace the profile's
	// fallback_models when not nil; empty turns them off.
	FallbackModels []string
}

// Settings are the resolved providers' settings of a run.
type Settings struct {
	Profile string
	// Provider is the wire protocol: OpenAI, OpenAIResponses or Anthropic.
	Provider  string
	BaseURL   string
	APIKey    string
	APIKeyEnv string
	// ProviderKeyEnvs are the variables that hold a provider's key: the
	// OpenAI and Anthropic ones, APIKeyEnv and every profile's
	// api_key_env. Commands and a project's MCP servers never get them.
	ProviderKeyEnvs []string
	Model           string
	// MaxRetries are a failed request's retries (0: none); IdleTimeout
	// fails a stream that sends nothing for that long (0: the adapter's).
	MaxRetries  int
	IdleTimeout time.Duration
	// ContextWindow is the model's window in tokens from the config file
	// (the profile's, else the top level's); 0 looks the model up in a
	// table of common models.
	ContextWindow int
	// AutoCompact is the share of the window past which the conversation
	// is compacted, 0 for never (auto_compact).
	AutoCompact float64
	// ThinkingBudget is the extended thinking budget in tokens (0: off);
	// MaxOutputTokens bounds each response (0: the adapter's default).
	ThinkingBudget  int
	MaxOutputTokens int
	// Price is the profile's price override, nil to use the table.
	Price *Price
	// ReasoningEffort is reasoning.effort for openai-responses ("": the
	// model's default); WebSearch offers the provider's web search tool.
	ReasoningEffort string
	WebSearch       bool
	// Images is the profile's images setting; nil asks the table.
	Images *bool
	// ModelAliases map a lower-case model name of Claude Code's files
	// (sonnet) to the model of this run (see ResolveModel).
	ModelAliases map[string]string
	// Fallbacks are the settings of the models a turn falls back to, in
	// order (fallback_models, --fallback-model): each with its own
	// server, key and model.
	Fallbacks []Settings
}

// Resolve applies the precedence flag > environment > config file >
// default to the providers' settings; path names the config file in
// messages. Its errors say what to change (cmd's usage errors); a missing
// model or key is Ready's to say, so that what needs neither (agent
// doctor, agent mcp) still has the rest.
func Resolve(f File, path string, o Overrides, getenv func(string) string) (Settings, error) {
	s, p, err := pick(f, path, o, getenv)
	if err != nil {
		return s, err
	}
	if err := s.server(f, p, o, path, getenv); err != nil {
		return s, err
	}
	if err := s.window(f, p, path); err != nil {
		return s, err
	}
	if err := s.requests(f, p, o, path); err != nil {
		return s, err
	}
	if err := s.responses(o, p); err != nil {
		return s, err
	}
	s.aliases(f, p, getenv)
	if err := s.fallbacks(f, p, o, path, getenv); err != nil {
		return s, err
	}
	return s, nil
}

// pick chooses the profile: the flag's, AGENT_PROFILE's, the file's, or
// the only one; an unknown one is an error listing the file's.
func pick(f File, path string, o Overrides, getenv func(string) string) (Settings, Profile, error) {
	s := Settings{Profile: cmp.Or(o.Profile, getenv("AGENT_PROFILE"), f.Profile)}
	if s.Profile == "" && len(f.Profiles) == 1 {
		for name := range f.Profiles {
			s.Profile = name
		}
	}
	if s.Profile == "" {
		return s, Profile{}, nil
	}
	p, ok := f.Profiles[s.Profile]
	if !ok {
		names := make([]string, 0, len(f.Profiles))
		for n := range f.Profiles {
			names = append(names, n)
		}
		slices.Sort(names)
		return s, p, fmt.Errorf("profile %q is not in %s (profiles there: %s)", s.Profile, path, strings.Join(names, ", "))
	}
	return s, p, nil
}

// server resolves the wire protocol, the key's variable, the base URL and
// the model.
func (s *Settings) server(f File, p Profile, o Overrides, path string, getenv func(string) string) error {
	s.Provider = cmp.Or(o.Provider, p.Provider, OpenAI)
	keyEnv, urlEnv, defaultURL := "OPENAI_API_KEY", "OPENAI_BASE_URL", DefaultBaseURL
	switch s.Provider {
	case OpenAI, OpenAIResponses:
	case Anthropic:
		keyEnv, urlEnv, defaultURL = "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", DefaultAnthropicBaseURL
	default:
		if o.Provider != "" {
			return fmt.Errorf("--provider %q: want openai, openai-responses or anthropic", s.Provider)
		}
		return fmt.Errorf("config %s: profile %q: provider %q: want openai, openai-responses or anthropic", path, s.Profile, s.Provider)
	}
	s.APIKeyEnv = cmp.Or(p.APIKeyEnv, keyEnv)
	s.ProviderKeyEnvs = []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", s.APIKeyEnv}
	for _, prof := range f.Profiles {
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
	s.BaseURL = strings.TrimRight(cmp.Or(o.BaseURL, envURL, p.BaseURL, defaultURL), "/")
	if u, err := url.Parse(s.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("base URL %q is not an http(s) URL", s.BaseURL)
	}
	s.Model = cmp.Or(o.Model, getenv("AGENT_MODEL"), p.Model)
	s.APIKey = getenv(s.APIKeyEnv)
	if o.Provider == "" && p.Provider == "" && prefersResponses(s.BaseURL, s.Model) {
		s.Provider = OpenAIResponses
	}
	return nil
}

// window resolves the context window and when to compact.
func (s *Settings) window(f File, p Profile, path string) error {
	s.ContextWindow = cmp.Or(p.ContextWindow, f.ContextWindow)
	if s.ContextWindow < 0 {
		return fmt.Errorf("config %s: context_window must be a number of tokens, got %d", path, s.ContextWindow)
	}
	s.AutoCompact = DefaultAutoCompact
	for _, v := range []*float64{f.AutoCompact, p.AutoCompact} {
		if v != nil {
			s.AutoCompact = *v
		}
	}
	if s.AutoCompact < 0 || s.AutoCompact > 1 {
		return fmt.Errorf("config %s: auto_compact must be a share of the context window from 0 (off) to 1, got %g", path, s.AutoCompact)
	}
	return nil
}

// requests resolves the retries, the idle timeout, the output limit and
// the thinking budget.
func (s *Settings) requests(f File, p Profile, o Overrides, path string) error {
	s.MaxRetries = 4
	if f.MaxRetries != nil {
		s.MaxRetries = *f.MaxRetries
	}
	if o.MaxRetries >= 0 {
		s.MaxRetries = o.MaxRetries
	}
	s.IdleTimeout = o.IdleTimeout
	if s.IdleTimeout == 0 && f.IdleTimeout != "" {
		var err error
		if s.IdleTimeout, err = time.ParseDuration(f.IdleTimeout); err != nil {
			return fmt.Errorf("config %s: idle_timeout: %w", path, err)
		}
	}
	s.ThinkingBudget, s.MaxOutputTokens, s.Price, s.Images = p.ThinkingBudget, p.MaxOutputTokens, p.Price, p.Images
	if o.ThinkingBudgetSet {
		s.ThinkingBudget = o.ThinkingBudget
	}
	switch {
	case s.ThinkingBudget < 0 || s.MaxOutputTokens < 0:
		return errors.New("thinking budget and max output tokens must not be negative")
	case s.ThinkingBudget > 0 && s.Provider != Anthropic:
		return errors.New("a thinking budget needs provider anthropic (the openai protocol has no thinking budget)")
	case s.ThinkingBudget > 0 && s.ThinkingBudget < minThinkingBudget:
		return fmt.Errorf("thinking budget %d is below the API's minimum of %d tokens", s.ThinkingBudget, minThinkingBudget)
	case s.ThinkingBudget > 0 && s.MaxOutputTokens > 0 && s.MaxOutputTokens <= s.ThinkingBudget:
		return fmt.Errorf("max_output_tokens (%d) must exceed the thinking budget (%d): thinking counts as output", s.MaxOutputTokens, s.ThinkingBudget)
	}
	return nil
}

// Ready reports what is missing for a request: a model, or a key for a
// server that is not on this machine; path names the config file.
func (s Settings) Ready(path string) error {
	if s.Model == "" {
		return fmt.Errorf("no model configured: pass --model NAME, set AGENT_MODEL, or set model in a profile of %s", path)
	}
	if s.APIKey == "" && !isLocal(s.BaseURL) {
		if s.Provider == Anthropic {
			return fmt.Errorf("no API key for %s: set %s (or use a local server with --base-url http://localhost:PORT)", s.BaseURL, s.APIKeyEnv)
		}
		return fmt.Errorf("no API key for %s: set %s (or use a local server with --base-url http://localhost:PORT/v1)", s.BaseURL, s.APIKeyEnv)
	}
	return nil
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
