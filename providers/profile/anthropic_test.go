package profile

import (
	"strings"
	"testing"
)

const claudeProfile = `
profile = "claude"
[profiles.claude]
provider = "anthropic"
model = "claude-sonnet-4-5"
thinking_budget = 4000
max_output_tokens = 20000
[profiles.claude.price]
input = 1.5
output = 7.5
[profiles.proxy]
provider = "anthropic"
base_url = "https://proxy.example.com"
api_key_env = "PROXY_KEY"
model = "claude-haiku-4-5"
`

func TestAnthropicSettings(t *testing.T) {
	cfg := writeConfig(t, claudeProfile)
	tests := []struct {
		name     string
		opts     Flags
		env      map[string]string
		wantURL  string
		wantKey  string
		wantBudg int
	}{
		{"defaults", Flags{}, map[string]string{"ANTHROPIC_API_KEY": "ka", "OPENAI_API_KEY": "ko"},
			DefaultAnthropicBaseURL, "ka", 4000},
		{"ANTHROPIC_BASE_URL", Flags{}, map[string]string{"ANTHROPIC_API_KEY": "ka", "ANTHROPIC_BASE_URL": "https://gw.example.com/", "OPENAI_BASE_URL": "https://no.example.com/v1"},
			"https://gw.example.com", "ka", 4000},
		{"flag turns thinking off", Flags{ThinkingBudget: 0, ThinkingBudgetSet: true}, map[string]string{"ANTHROPIC_API_KEY": "ka"},
			DefaultAnthropicBaseURL, "ka", 0},
		{"own key variable keeps its own server", Flags{Profile: "proxy"}, map[string]string{"PROXY_KEY": "kp", "ANTHROPIC_BASE_URL": "https://gw.example.com"},
			"https://proxy.example.com", "kp", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.opts
			o.ConfigPath, o.MaxRetries = cfg, -1
			s, err := resolve(&o, envOf(tt.env))
			if err != nil {
				t.Fatal(err)
			}
			if s.Provider != Anthropic || s.BaseURL != tt.wantURL || s.APIKey != tt.wantKey || s.ThinkingBudget != tt.wantBudg {
				t.Errorf("got provider=%s url=%s key=%q budget=%d", s.Provider, s.BaseURL, s.APIKey, s.ThinkingBudget)
			}
		})
	}
	o := Flags{ConfigPath: cfg, MaxRetries: -1}
	s, err := resolve(&o, envOf(map[string]string{"ANTHROPIC_API_KEY": "ka"}))
	if err != nil || s.MaxOutputTokens != 20000 || s.Price == nil || s.Price.Input != 1.5 {
		t.Errorf("max output %d, price %+v, %v", s.MaxOutputTokens, s.Price, err)
	}
}

func TestProviderFlag(t *testing.T) {
	o := Flags{Provider: "anthropic", Model: "claude-x", MaxRetries: -1}
	env := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "ANTHROPIC_API_KEY": "ka"}
	s, err := resolve(&o, envOf(env))
	if err != nil || s.Provider != Anthropic || s.BaseURL != DefaultAnthropicBaseURL || s.APIKeyEnv != "ANTHROPIC_API_KEY" {
		t.Errorf("settings %+v, %v", s, err)
	}
}

func TestMaxOutputMustExceedTheBudget(t *testing.T) {
	cfg := writeConfig(t, "[profiles.c]\nprovider = \"anthropic\"\nmodel = \"c\"\nbase_url = \"http://localhost:1\"\nthinking_budget = 4000\nmax_output_tokens = 4000\n")
	o := Flags{ConfigPath: cfg, MaxRetries: -1}
	if _, err := resolve(&o, envOf(nil)); err == nil || !strings.Contains(err.Error(), "must exceed") {
		t.Errorf("err = %v", err)
	}
}

func TestAnthropicSettingsErrors(t *testing.T) {
	xdg := map[string]string{"XDG_CONFIG_HOME": t.TempDir()}
	tests := []struct {
		name string
		opts Flags
		want []string
	}{
		{"no key", Flags{Provider: "anthropic", Model: "claude-x"}, []string{"ANTHROPIC_API_KEY"}},
		{"unknown provider", Flags{Provider: "gemini", Model: "m"}, []string{"gemini", "openai, openai-responses or anthropic"}},
		{"thinking on openai", Flags{Model: "m", BaseURL: "http://localhost:1/v1", ThinkingBudget: 2000, ThinkingBudgetSet: true}, []string{"anthropic"}},
		{"thinking budget too small", Flags{Provider: "anthropic", Model: "c", BaseURL: "http://localhost:1", ThinkingBudget: 500, ThinkingBudgetSet: true}, []string{"1024"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.opts
			o.MaxRetries = -1
			_, err := resolve(&o, envOf(xdg))
			if err == nil {
				t.Fatal("want an error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
	o := Flags{Provider: "anthropic", Model: "claude-x", BaseURL: "http://127.0.0.1:9", MaxRetries: -1}
	if _, err := resolve(&o, envOf(xdg)); err != nil {
		t.Errorf("a local anthropic server needs no key: %v", err)
	}
}
