package profile

import (
	"strings"
	"testing"
)

// TestResponsesIsTheDefaultForOpenAIModels checks which protocol a run that
// names none speaks: the Responses API for OpenAI's models at OpenAI's
// API, chat completions for any other server or model, and what a flag or
// a profile names in every case.
func TestResponsesIsTheDefaultForOpenAIModels(t *testing.T) {
	tests := []struct {
		name string
		opts Flags
		env  map[string]string
		want string
	}{
		{"gpt-5 at OpenAI", Flags{Model: "gpt-5"}, nil, OpenAIResponses},
		{"o4-mini at OpenAI", Flags{Model: "o4-mini"}, nil, OpenAIResponses},
		{"gpt-4.1 at OpenAI's URL written out", Flags{Model: "gpt-4.1", BaseURL: "https://api.openai.com/v1/"}, nil, OpenAIResponses},
		{"another model at OpenAI", Flags{Model: "text-embedding-3-small"}, nil, OpenAI},
		{"gpt-5 at OpenRouter", Flags{Model: "openai/gpt-5", BaseURL: "https://openrouter.ai/api/v1"}, nil, OpenAI},
		{"gpt-oss at Ollama", Flags{Model: "gpt-oss:20b", BaseURL: "http://localhost:11434/v1"}, nil, OpenAI},
		{"OPENAI_BASE_URL elsewhere", Flags{Model: "gpt-5"}, map[string]string{"OPENAI_BASE_URL": "https://gw.example.com/v1"}, OpenAI},
		{"the flag wins", Flags{Model: "gpt-5", Provider: "openai"}, nil, OpenAI},
		{"the flag names responses anywhere", Flags{Model: "qwen3", Provider: "openai-responses", BaseURL: "http://localhost:8000/v1"}, nil, OpenAIResponses},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "OPENAI_API_KEY": "sk"}
			for k, v := range tt.env {
				env[k] = v
			}
			o := tt.opts
			o.MaxRetries = -1
			s, err := resolve(&o, envOf(env))
			if err != nil {
				t.Fatal(err)
			}
			if s.Provider != tt.want {
				t.Errorf("provider %s, want %s", s.Provider, tt.want)
			}
		})
	}
	cfg := writeConfig(t, "[profiles.chat]\nprovider = \"openai\"\nmodel = \"gpt-5\"\n")
	o := Flags{ConfigPath: cfg, MaxRetries: -1}
	if s, err := resolve(&o, envOf(map[string]string{"OPENAI_API_KEY": "sk"})); err != nil || s.Provider != OpenAI {
		t.Errorf("a profile that names openai: %s, %v", s.Provider, err)
	}
}

func TestResponsesSettings(t *testing.T) {
	cfg := writeConfig(t, "[profiles.gpt]\nprovider = \"openai-responses\"\nmodel = \"gpt-5\"\nreasoning_effort = \"high\"\nweb_search = true\n")
	o := Flags{ConfigPath: cfg, MaxRetries: -1}
	s, err := resolve(&o, envOf(map[string]string{"OPENAI_API_KEY": "sk"}))
	if err != nil || s.ReasoningEffort != "high" || !s.WebSearch || s.APIKeyEnv != "OPENAI_API_KEY" || s.BaseURL != DefaultBaseURL {
		t.Fatalf("settings %+v, %v", s, err)
	}
	o = Flags{ConfigPath: cfg, MaxRetries: -1, ReasoningEffort: "minimal"}
	if s, err := resolve(&o, envOf(map[string]string{"OPENAI_API_KEY": "sk"})); err != nil || s.ReasoningEffort != "minimal" {
		t.Errorf("--reasoning-effort: %q, %v", s.ReasoningEffort, err)
	}
	if p, ok := New(s, -1, nil).(responsesProvider); !ok || p.Client == nil {
		t.Errorf("provider %T, want the Responses adapter", New(s, -1, nil))
	}
}

func TestResponsesSettingsErrors(t *testing.T) {
	xdg := map[string]string{"XDG_CONFIG_HOME": t.TempDir()}
	tests := []struct {
		name   string
		config string
		opts   Flags
		want   string
	}{
		{"unknown effort", "", Flags{Provider: "openai-responses", Model: "gpt-5", BaseURL: "http://localhost:1/v1", ReasoningEffort: "extreme"}, "none, minimal, low, medium, high, xhigh"},
		{"effort with chat completions", "", Flags{Provider: "openai", Model: "m", BaseURL: "http://localhost:1/v1", ReasoningEffort: "low"}, "openai-responses"},
		{"effort with anthropic", "", Flags{Provider: "anthropic", Model: "c", BaseURL: "http://localhost:1", ReasoningEffort: "low"}, "thinking_budget"},
		{"web search with chat completions", "[profiles.p]\nbase_url = \"http://localhost:1/v1\"\nmodel = \"m\"\nweb_search = true\n", Flags{}, "web_search needs provider anthropic or openai-responses"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.opts
			o.MaxRetries = -1
			if tt.config != "" {
				o.ConfigPath = writeConfig(t, tt.config)
			}
			_, err := resolve(&o, envOf(xdg))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want an error naming %q", err, tt.want)
			}
		})
	}
}
