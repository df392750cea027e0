// Package responses is the provider for OpenAI's Responses API with
// streaming (POST {base_url}/responses). It maps the neutral conversation of
// package providers to that wire format with the official SDK,
// github.com/openai/openai-go/v3 (format.go), assembles the streamed events
// into a response (assemble.go, stream.go), and retries failed requests with
// the shared policy and transport of package providers.
//
// Requests are stateless: store is false, so OpenAI keeps nothing between
// requests, and every request carries the whole conversation. Reasoning
// models' reasoning items come back encrypted (include
// "reasoning.encrypted_content"); they are kept in the conversation as
// providers.Reasoning parts (Encrypted, ItemID) and sent back unchanged, so
// the model keeps its reasoning across the tool calls of a turn, also in a
// resumed session. prompt_cache_key is the request's CacheKey (the
// session's id), so a session's requests reach the same prompt cache.
//
// The stream is server-sent events, one JSON object per event, as in the
// API reference's "Streaming events" (response.created ... response.completed).
package responses

import (
	"net/http"
	"strings"
	"time"

	"github.com/openai/openai-go/v3/option"
	oai "github.com/openai/openai-go/v3/responses"

	"github.com/agent-dev/agent/providers"
)

// DefaultBaseURL is OpenAI's API root; "/responses" is appended.
const DefaultBaseURL = "https://api.openai.com/v1"

// Config configures a Client. Zero fields take the defaults.
type Config struct {
	// BaseURL is the API root up to and including the version, for
	// example "https://api.openai.com/v1"; "/responses" is appended.
	BaseURL string
	// APIKey is sent as a bearer token; empty sends no Authorization
	// header (a local server). It never appears in errors. The SDK's own
	// look-up of OPENAI_API_KEY and OPENAI_BASE_URL is not used: this is
	// the only key.
	APIKey string
	// MaxRetries, BaseDelay and MaxDelay are the shared retry policy (see
	// providers.RetryPolicy).
	MaxRetries int
	BaseDelay  time.Duration
	MaxDelay   time.Duration
	// IdleTimeout is how long a stream may send no byte at all before it
	// fails with providers.ErrStreamIdle; 0 means
	// providers.DefaultIdleTimeout.
	IdleTimeout time.Duration
	// HTTPClient sends the requests; nil means a new client over
	// http.DefaultTransport.
	HTTPClient *http.Client
	// MaxOutputTokens is max_output_tokens when the request sets none; 0
	// sends none (the model's limit).
	MaxOutputTokens int
	// ReasoningEffort is reasoning.effort ("none", "minimal", "low",
	// "medium", "high", "xhigh"); "" leaves it to the model. Reasoning
	// (effort, summaries and encrypted items) is asked for when it is set
	// or the model is a reasoning model (see Reasons).
	ReasoningEffort string
	// WebSearch offers the model OpenAI's web_search tool, which the
	// server runs; its calls and the answer's citations come back in the
	// response (providers.WebSearch and providers.Citation parts).
	WebSearch bool
	// Images reports whether a model takes images; nil asks
	// providers.TakesImages. A model that takes none gets each image's
	// description (providers.Image.Describe) instead.
	Images func(model string) bool
}

// Client streams responses from one server. It is safe for concurrent use.
type Client struct {
	cfg   Config
	api   oai.ResponseService
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
	// NewResponseService takes only these options: unlike
	// openai.NewClient, it reads no environment variable.
	opts := []option.RequestOption{
		option.WithBaseURL(cfg.BaseURL + "/"),
		option.WithHTTPClient(providers.NewHTTPClient(cfg.HTTPClient)),
		option.WithMaxRetries(0), // retries are the shared policy's
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	return &Client{cfg: cfg, api: oai.NewResponseService(opts...), retry: retry}
}

// Reasons reports whether model is one of OpenAI's reasoning models (the o
// series, gpt-5 and its variants but the chat ones, codex models), which
// take reasoning parameters; other models reject them.
func Reasons(model string) bool {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	if strings.Contains(m, "-chat") {
		return false
	}
	for _, p := range []string{"o1", "o3", "o4", "gpt-5", "codex"} {
		if strings.HasPrefix(m, p) {
			return true
		}
	}
	return false
}

// redact removes the API key from s, in case a server echoed it.
func (c *Client) redact(s string) string {
	if c.cfg.APIKey == "" {
		return s
	}
	return strings.ReplaceAll(s, c.cfg.APIKey, "[redacted]")
}

// takesImages reports whether model gets images as input_image parts.
func (c *Client) takesImages(model string) bool {
	if c.cfg.Images != nil {
		return c.cfg.Images(model)
	}
	return providers.TakesImages(model)
}
