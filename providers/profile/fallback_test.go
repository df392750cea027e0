package profile

import (
	"github.com/BurntSushi/toml"
	"strings"
	"testing"
)

const fallbackConfig = `
profile = "claude"
[profiles.claude]
provider = "anthropic"
model = "claude-sonnet-4-5"
fallback_models = ["claude-haiku-4-5", "local", "router:openai/gpt-4.1-mini"]
[profiles.claude.price]
input = 9.0
output = 9.0
[profiles.local]
base_url = "http://127.0.0.1:11434/v1"
model = "qwen3"
fallback_models = ["never-followed"]
[profiles.router]
base_url = "https://openrouter.example/api/v1"
api_key_env = "ROUTER_KEY"
model = "x"
[profiles.router.price]
input = 1.0
output = 2.0
`

func TestFallbackModelsResolveToTheirServers(t *testing.T) {
	path := writeConfig(t, fallbackConfig)
	s, err := Resolve(readFile(t, path), path, Overrides{MaxRetries: -1}, envOf(map[string]string{"ANTHROPIC_API_KEY": "a", "ROUTER_KEY": "r"}))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(s.FallbackModels(), ","); got != "claude-haiku-4-5,qwen3,openai/gpt-4.1-mini" {
		t.Fatalf("fallbacks %s", got)
	}
	same, local, router := s.Fallbacks[0], s.Fallbacks[1], s.Fallbacks[2]
	if same.Provider != Anthropic || same.BaseURL != s.BaseURL || same.APIKey != "a" {
		t.Errorf("a model of the same server: %+v", same)
	}
	if local.Provider != OpenAI || local.BaseURL != "http://127.0.0.1:11434/v1" || local.APIKey != "" || len(local.Fallbacks) != 0 {
		t.Errorf("a profile's own model: %+v", local)
	}
	if router.BaseURL != "https://openrouter.example/api/v1" || router.APIKey != "r" {
		t.Errorf("PROFILE:MODEL: %+v", router)
	}
	price := s.Pricer()
	if p, _ := price("claude-sonnet-4-5"); p.Input != 9 {
		t.Errorf("the model's own price: %+v", p)
	}
	if p, ok := price("openai/gpt-4.1-mini"); !ok || p.Output != 2 {
		t.Errorf("a fallback profile's price: %+v %v", p, ok)
	}
	if p, _ := price("claude-haiku-4-5"); p.Input == 9 {
		t.Error("the profile's price was given to another model of its server")
	}

	s, err = Resolve(readFile(t, path), path, Overrides{MaxRetries: -1, FallbackModels: []string{"local:llama3"}}, envOf(map[string]string{"ANTHROPIC_API_KEY": "a"}))
	if err != nil || strings.Join(s.FallbackModels(), ",") != "llama3" {
		t.Fatalf("--fallback-model replaces the profile's: %v %v", s.FallbackModels(), err)
	}
}

func TestAFallbackWithoutItsKeySaysSo(t *testing.T) {
	path := writeConfig(t, fallbackConfig)
	_, err := Resolve(readFile(t, path), path, Overrides{MaxRetries: -1}, envOf(map[string]string{"ANTHROPIC_API_KEY": "a"}))
	if err == nil || !strings.Contains(err.Error(), `fallback "router:openai/gpt-4.1-mini"`) || !strings.Contains(err.Error(), "ROUTER_KEY") {
		t.Fatalf("%v", err)
	}
}

func readFile(t *testing.T, path string) File {
	t.Helper()
	var f File
	if _, err := toml.DecodeFile(path, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// The variables that choose the run's own model and server do not reach a
// fallback profile: its model and server are the config file's.
func TestAFallbackProfileIgnoresTheRunsModelAndServerVariables(t *testing.T) {
	path := writeConfig(t, fallbackConfig)
	env := map[string]string{"ANTHROPIC_API_KEY": "a", "ROUTER_KEY": "r", "AGENT_MODEL": "claude-opus-4-1",
		"OPENAI_BASE_URL": "http://127.0.0.1:9999/v1"}
	s, err := Resolve(readFile(t, path), path, Overrides{MaxRetries: -1}, envOf(env))
	if err != nil {
		t.Fatal(err)
	}
	if s.Model != "claude-opus-4-1" {
		t.Errorf("the run's own model: %s", s.Model)
	}
	local := s.Fallbacks[1]
	if local.Model != "qwen3" || local.BaseURL != "http://127.0.0.1:11434/v1" {
		t.Errorf("the local fallback took the run's variables: %s at %s", local.Model, local.BaseURL)
	}
}
