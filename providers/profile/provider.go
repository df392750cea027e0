package profile

import (
	"context"
	"net/http"

	"github.com/agent-dev/agent/media"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/anthropic"
	"github.com/agent-dev/agent/providers/openai"
	"github.com/agent-dev/agent/providers/responses"
)

// Provider is what the agent needs of a model vendor: streaming for the
// loop and the model list for `agent doctor` and /model.
type Provider interface {
	providers.Provider
	Models(ctx context.Context) ([]string, error)
}

var (
	_ Provider = (*openai.Client)(nil)
	_ Provider = (*anthropic.Client)(nil)
	_ Provider = responsesProvider{}
)

// responsesProvider streams with the Responses API and lists models with
// the chat completions adapter (GET BASE_URL/models is the same endpoint).
type responsesProvider struct {
	*responses.Client
	models *openai.Client
}

// Models lists the server's model ids (see openai.Client.Models).
func (p responsesProvider) Models(ctx context.Context) ([]string, error) { return p.models.Models(ctx) }

// New builds the provider the settings name (the one place that
// knows the adapters). maxRetries overrides the settings' retries: -1 for
// none (doctor's single request). hc sends the requests (an agent's pool,
// whose connection may be open already); nil is a client over
// http.DefaultTransport.
func New(s Settings, maxRetries int, hc *http.Client) Provider {
	switch s.Provider {
	case Anthropic:
		return anthropic.New(anthropic.Config{HTTPClient: hc,
			BaseURL: s.BaseURL, APIKey: s.APIKey, MaxRetries: maxRetries, IdleTimeout: s.IdleTimeout,
			MaxOutputTokens: s.MaxOutputTokens, ThinkingBudget: s.ThinkingBudget, WebSearch: s.WebSearch, Images: s.TakesImages,
		})
	case OpenAIResponses:
		return responsesProvider{
			Client: responses.New(responses.Config{HTTPClient: hc, BaseURL: s.BaseURL, APIKey: s.APIKey, MaxRetries: maxRetries, IdleTimeout: s.IdleTimeout,
				MaxOutputTokens: s.MaxOutputTokens, ReasoningEffort: s.ReasoningEffort, WebSearch: s.WebSearch, Images: s.TakesImages}),
			models: openai.New(openai.Config{HTTPClient: hc, BaseURL: s.BaseURL, APIKey: s.APIKey, MaxRetries: maxRetries}),
		}
	default:
		return openai.New(openai.Config{HTTPClient: hc, BaseURL: s.BaseURL, APIKey: s.APIKey, MaxRetries: maxRetries, IdleTimeout: s.IdleTimeout,
			MaxOutputTokens: s.MaxOutputTokens, Images: s.TakesImages})
	}
}

// OutputReserve is the tokens of the context window a response may take,
// as the provider asks for them: max_output_tokens when set; for Anthropic,
// which always sends max_tokens, its default plus the thinking budget; for
// the OpenAI protocol without a limit, none (the server gives the answer
// what the request leaves).
func (s Settings) OutputReserve() int {
	switch {
	case s.MaxOutputTokens > 0:
		return s.MaxOutputTokens
	case s.Provider == Anthropic:
		return anthropic.DefaultMaxOutputTokens + max(s.ThinkingBudget, 0)
	}
	return 0
}

// TakesImages reports whether model gets images: the profile's images
// setting, else the table of common models (providers.TakesImages).
func (s Settings) TakesImages(model string) bool {
	if s.Images != nil {
		return *s.Images
	}
	return providers.TakesImages(model)
}

// ImageLimit is what the provider of the settings takes of one image.
func (s Settings) ImageLimit() media.Limit {
	if s.Provider == Anthropic {
		return media.Anthropic
	}
	return media.OpenAI
}

// Retries is the settings' retry count as the adapters read it (0 is their
// default, so "no retries" is -1).
func (s Settings) Retries() int {
	if s.MaxRetries == 0 {
		return -1
	}
	return s.MaxRetries
}

// ModelPrice is the price of the settings' model: the profile's [price] table
// when it has one, else the table of common models; ok is false when the
// model is in neither, and then no cost is shown.
func (s Settings) ModelPrice() (providers.Price, bool) {
	if s.Price != nil {
		return providers.Price{Input: s.Price.Input, Output: s.Price.Output, CacheRead: s.Price.CacheRead, CacheWrite: s.Price.CacheWrite}, true
	}
	return providers.PriceOf(s.Model)
}

// Pricer prices models for the interface: the settings' price for the
// configured model (the profile's [price] table, when it has one, is for
// it), a fallback's profile's for its model, the table for any other
// (after /model).
func (s Settings) Pricer() func(model string) (providers.Price, bool) {
	return func(model string) (providers.Price, bool) {
		if model == s.Model {
			return s.ModelPrice()
		}
		for _, fb := range s.Fallbacks {
			if model == fb.Model {
				return fb.ModelPrice()
			}
		}
		return providers.PriceOf(model)
	}
}

// Models lists the models of the settings' server: one request, without
// retries, as agent doctor lists them.
func Models(ctx context.Context, s Settings) ([]string, error) {
	return New(s, -1, nil).Models(ctx)
}
