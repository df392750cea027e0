package profile

import (
	"cmp"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// ReasoningEfforts are the values of reasoning.effort the Responses API
// takes.
var ReasoningEfforts = []string{"none", "minimal", "low", "medium", "high", "xhigh"}

// prefersResponses reports whether a run that names no provider should
// speak the Responses API rather than chat completions: OpenAI's own API
// (api.openai.com) with one of OpenAI's models. There only the Responses
// API carries a reasoning model's reasoning from one request to the next
// (chat completions drops it, so the model thinks again after every tool
// call), streams reasoning summaries, offers the web_search tool, and
// serves the newest models (the codex ones answer nowhere else). Every
// other server (Ollama, vLLM, OpenRouter, ...) speaks chat completions, the
// protocol they all share.
func prefersResponses(baseURL, model string) bool {
	u, err := url.Parse(baseURL)
	if err != nil || u.Hostname() != "api.openai.com" {
		return false
	}
	m := strings.ToLower(model)
	for _, p := range []string{"gpt-", "o1", "o3", "o4", "codex", "chatgpt-"} {
		if strings.HasPrefix(m, p) {
			return true
		}
	}
	return false
}

// responses fills and checks the settings of the Responses API and
// of server-side web search: --reasoning-effort (else the profile's
// reasoning_effort) only with openai-responses and one of the API's
// values; web_search only with a provider that runs a search tool.
func (s *Settings) responses(o Overrides, p Profile) error {
	s.ReasoningEffort = cmp.Or(o.ReasoningEffort, p.ReasoningEffort)
	s.WebSearch = p.WebSearch
	switch {
	case s.ReasoningEffort != "" && !slices.Contains(ReasoningEfforts, s.ReasoningEffort):
		return fmt.Errorf("reasoning effort %q: want one of %s", s.ReasoningEffort, strings.Join(ReasoningEfforts, ", "))
	case s.ReasoningEffort != "" && s.Provider != OpenAIResponses:
		return errors.New("a reasoning effort needs provider openai-responses (anthropic has thinking_budget; chat completions is not given one)")
	case s.WebSearch && s.Provider == OpenAI:
		return errors.New("web_search needs provider anthropic or openai-responses: chat completions servers run no search tool")
	}
	return nil
}
