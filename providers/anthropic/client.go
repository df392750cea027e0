// Package anthropic is the provider for Anthropic's Messages API with
// streaming (POST {base_url}/v1/messages). It maps the neutral conversation
// of package providers to that wire format with the official SDK
// (format.go), places prompt-cache breakpoints (cache.go), assembles the
// streamed events into a response (assemble.go, stream.go), and retries
// failed requests with the shared policy of package providers.
package anthropic

import (
	"net/http"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/agent-dev/agent/providers"
)

// Defaults for the zero fields of Config.
const (
	DefaultBaseURL = "https://api.anthropic.com"
	// DefaultMaxOutputTokens is max_tokens when neither the request nor
	// the configuration sets one: every current Claude model can write
	// that much (Claude 3.5 Haiku's limit is 8192).
	DefaultMaxOutputTokens = 8192
)

// Config configures a Client. Zero fields take the defaults.
type Config struct {
	// BaseURL is the API root without the version, for example
	// "https://api.anthropic.com"; "/v1/messages" is appended.
	BaseURL string
	// APIKey is sent as X-Api-Key; empty sends none (a local server).
	// It never appears in errors. The SDK's own look-up of environment
	// variables and credential files is turned off: this is the only key.
	APIKey string
	// Images reports whether a model takes images; nil asks
	// providers.TakesImages. A model that takes none gets each image's
	// description.
	Images func(model string) bool
	// MaxRetries, BaseDelay and MaxDelay are the shared retry policy (see
	// providers.RetryPolicy): 429, 5xx (529 overloaded_error included) and
	// connection failures before any byte of the answer are retried.
	MaxRetries int
	BaseDelay  time.Duration
	MaxDelay   time.Duration
	// IdleTimeout is how long a stream may send no byte at all (ping
	// events count) before it fails with providers.ErrStreamIdle; 0 means
	// providers.DefaultIdleTimeout.
	IdleTimeout time.Duration
	// HTTPClient sends the requests; nil means a new client over
	// http.DefaultTransport.
	HTTPClient *http.Client
	// MaxOutputTokens is max_tokens when the request sets none; 0 means
	// DefaultMaxOutputTokens, or ThinkingBudget+DefaultMaxOutputTokens
	// when thinking is on (max_tokens must exceed the budget).
	MaxOutputTokens int
	// ThinkingBudget turns extended thinking on with this budget in tokens
	// (at least 1024, the API's minimum) when the request sets none; 0 is
	// off.
	ThinkingBudget int
	// WebSearch offers the model Anthropic's web_search server tool
	// (web_search_20250305, at most MaxWebSearches searches a response),
	// which the API runs; its searches and the answer's citations come back
	// in the response (providers.WebSearch and providers.Citation parts).
	WebSearch bool
}

// MaxWebSearches is the web_search tool's max_uses: the searches one
// response may run.
const MaxWebSearches = 5

// Client streams messages from one server. It is safe for concurrent use.
type Client struct {
	cfg   Config
	api   sdk.Client
	retry providers.RetryPolicy // tests replace its Sleep
}

var _ providers.Provider = (*Client)(nil)

// New returns a client for cfg. It does not contact the server.
func New(cfg Config) *Client {
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = providers.DefaultIdleTimeout
	}
	retry := providers.RetryPolicy{MaxRetries: cfg.MaxRetries, BaseDelay: cfg.BaseDelay, MaxDelay: cfg.MaxDelay}.Normalized()
	opts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithBaseURL(cfg.BaseURL + "/"),
		option.WithHTTPClient(providers.NewHTTPClient(cfg.HTTPClient)),
		option.WithMaxRetries(0), // retries are the shared policy's
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	return &Client{cfg: cfg, api: sdk.NewClient(opts...), retry: retry}
}

// redact removes the API key from s, in case a server echoed it.
func (c *Client) redact(s string) string {
	if c.cfg.APIKey == "" {
		return s
	}
	return strings.ReplaceAll(s, c.cfg.APIKey, "[redacted]")
}

// takesImages reports whether model gets images as image blocks.
func (c *Client) takesImages(model string) bool {
	if c.cfg.Images != nil {
		return c.cfg.Images(model)
	}
	return providers.TakesImages(model)
}
