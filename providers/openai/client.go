// Package openai is the provider for servers that speak the OpenAI chat
// completions API with streaming (OpenAI, OpenRouter, Ollama, vLLM, LM
// Studio, llama.cpp server, ...). It maps the neutral conversation of package
// providers to that wire format (format.go), assembles streamed deltas into a
// response (assemble.go, stream.go) and retries failed requests with the
// shared policy and transport of package providers (the OpenAI-specific
// error reading is in retry.go, the SSE comment filter in transport.go).
//
// Streams are server-sent events as specified by WHATWG HTML §9.2: lines
// starting with a colon are comments and keep a stream alive; "data: [DONE]"
// ends it.
package openai

import (
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agent-dev/agent/providers"
	goopenai "github.com/sashabaranov/go-openai"
)

// Defaults for the zero fields of Config; retries, delays and the idle
// timeout are the shared ones of package providers.
const (
	DefaultBaseURL     = "https://api.openai.com/v1"
	DefaultMaxRetries  = providers.DefaultMaxRetries
	DefaultIdleTimeout = providers.DefaultIdleTimeout
	DefaultBaseDelay   = providers.DefaultBaseDelay
	DefaultMaxDelay    = providers.DefaultMaxDelay
)

// Config configures a Client. Zero fields take the defaults above.
type Config struct {
	// BaseURL is the API root, up to and including the version, for
	// example "http://localhost:11434/v1"; "/chat/completions" is appended.
	BaseURL string
	// APIKey is sent as a bearer token; empty sends no Authorization
	// header (local servers need none). It never appears in errors.
	APIKey string
	// Images reports whether a model takes images; nil asks
	// providers.TakesImages. A model that takes none gets each image's
	// description.
	Images func(model string) bool
	// MaxRetries is how many times a request that failed before any byte
	// of the response arrived (429, 5xx, connection failure) is sent
	// again; 0 means DefaultMaxRetries and a negative value none.
	MaxRetries int
	// IdleTimeout is how long a stream may send no byte at all (SSE
	// comments count) before it fails with providers.ErrStreamIdle. It
	// also bounds the wait for the response headers.
	IdleTimeout time.Duration
	// BaseDelay is the first retry's backoff; each retry doubles it, with
	// jitter, up to MaxDelay.
	BaseDelay time.Duration
	// MaxDelay caps the backoff. A Retry-After longer than MaxDelay is not
	// waited for: the error is returned at once, RetryAfter set.
	MaxDelay time.Duration
	// HTTPClient sends the requests; nil means a new client over
	// http.DefaultTransport. Its Timeout, if any, bounds whole streams.
	HTTPClient *http.Client
	// MaxOutputTokens is max_completion_tokens when the request sets none;
	// 0 sends none (the server's default).
	MaxOutputTokens int
}

// Client streams chat completions from one server. It is safe for
// concurrent use.
type Client struct {
	cfg   Config
	api   *goopenai.Client
	retry providers.RetryPolicy // tests replace its Sleep
	// noStreamOptions is set once the server rejected stream_options.
	noStreamOptions atomic.Bool
}

var _ providers.Provider = (*Client)(nil)

// New returns a client for cfg. It does not contact the server.
func New(cfg Config) *Client {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	retry := providers.RetryPolicy{MaxRetries: cfg.MaxRetries, BaseDelay: cfg.BaseDelay, MaxDelay: cfg.MaxDelay}.Normalized()
	cfg.MaxRetries, cfg.BaseDelay, cfg.MaxDelay = retry.MaxRetries, retry.BaseDelay, retry.MaxDelay
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	hc := providers.NewHTTPClient(cfg.HTTPClient)
	hc.Transport = &commentFilter{base: hc.Transport}

	oc := goopenai.DefaultConfig(cfg.APIKey) // go-openai sends no Authorization header for an empty key
	oc.BaseURL = cfg.BaseURL
	oc.HTTPClient = hc
	// go-openai fails a stream after EmptyMessagesLimit consecutive
	// non-data lines (300 by default); blank lines and SSE comments count,
	// and OpenRouter sends hundreds of ": OPENROUTER PROCESSING" lines
	// while a model thinks. Idleness is our transport's job instead.
	oc.EmptyMessagesLimit = ^uint(0)
	return &Client{cfg: cfg, api: goopenai.NewClientWithConfig(oc), retry: retry}
}

// redact removes the API key from s, in case a server echoed it.
func (c *Client) redact(s string) string {
	if c.cfg.APIKey == "" {
		return s
	}
	return strings.ReplaceAll(s, c.cfg.APIKey, "[redacted]")
}

// takesImages reports whether model gets images as image_url parts.
func (c *Client) takesImages(model string) bool {
	if c.cfg.Images != nil {
		return c.cfg.Images(model)
	}
	return providers.TakesImages(model)
}
