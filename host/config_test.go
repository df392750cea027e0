package host

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/providers/profile"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

const twoProfiles = `
profile = "remote"
max_steps = 7
[profiles.remote]
base_url = "https://models.example.com/v1"
api_key_env = "REMOTE_KEY"
model = "config-model"
[profiles.ollama]
base_url = "http://localhost:11434/v1"
model = "qwen"
`

func TestSettingsPrecedence(t *testing.T) {
	cfg := writeConfig(t, twoProfiles)
	tests := []struct {
		name      string
		opts      Flags
		env       map[string]string
		wantURL   string
		wantModel string
		wantKey   string
		wantSteps int
	}{
		{"config profile", Flags{}, map[string]string{"REMOTE_KEY": "k1"},
			"https://models.example.com/v1", "config-model", "k1", 7},
		{"environment beats config", Flags{}, map[string]string{"REMOTE_KEY": "k1", "AGENT_MODEL": "env-model"},
			"https://models.example.com/v1", "env-model", "k1", 7},
		{"OPENAI_BASE_URL never takes another variable's key elsewhere", Flags{}, map[string]string{"REMOTE_KEY": "k1", "OPENAI_BASE_URL": "https://env.example.com/v1"},
			"https://models.example.com/v1", "config-model", "k1", 7},
		{"OPENAI_BASE_URL beats a profile that uses OPENAI_API_KEY", Flags{Profile: "ollama"}, map[string]string{"OPENAI_BASE_URL": "https://env.example.com/v1/", "OPENAI_API_KEY": "k2"},
			"https://env.example.com/v1", "qwen", "k2", 7},
		{"flags beat environment", Flags{Model: "flag-model", BaseURL: "http://127.0.0.1:9/v1", MaxSteps: 3}, map[string]string{"AGENT_MODEL": "env-model", "OPENAI_BASE_URL": "https://env.example.com/v1"},
			"http://127.0.0.1:9/v1", "flag-model", "", 3},
		{"profile flag", Flags{Profile: "ollama"}, nil,
			"http://localhost:11434/v1", "qwen", "", 7},
		{"profile from environment", Flags{}, map[string]string{"AGENT_PROFILE": "ollama"},
			"http://localhost:11434/v1", "qwen", "", 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.opts
			o.ConfigPath, o.MaxRetries = cfg, -1
			s, err := resolve(&o, envOf(tt.env))
			if err != nil {
				t.Fatal(err)
			}
			if s.BaseURL != tt.wantURL || s.Model != tt.wantModel || s.APIKey != tt.wantKey || s.MaxSteps != tt.wantSteps {
				t.Errorf("got url=%s model=%s key=%q steps=%d", s.BaseURL, s.Model, s.APIKey, s.MaxSteps)
			}
		})
	}
}

func TestSettingsDefaultsWithoutConfig(t *testing.T) {
	o := Flags{MaxRetries: -1}
	env := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "OPENAI_API_KEY": "sk-test", "AGENT_MODEL": "m"}
	s, err := resolve(&o, envOf(env))
	if err != nil {
		t.Fatal(err)
	}
	if s.BaseURL != profile.DefaultBaseURL || s.APIKey != "sk-test" || s.Tools != "pick" || s.MaxRetries != 4 {
		t.Errorf("defaults: %+v", s)
	}
	if strings.Contains(s.Describe(), "sk-test") {
		t.Errorf("describe leaks the key: %s", s.Describe())
	}
	// -v prints the step limit in force, the default 25, never 0.
	if !strings.Contains(s.Describe(), "max steps 25") {
		t.Errorf("describe without --max-steps: %s, want max steps 25", s.Describe())
	}
	o.MaxSteps = 7
	if s, err = resolve(&o, envOf(env)); err != nil || !strings.Contains(s.Describe(), "max steps 7") {
		t.Errorf("describe with --max-steps 7: %s (%v)", s.Describe(), err)
	}
}

func TestSettingsErrorsSayWhatToSet(t *testing.T) {
	xdg := map[string]string{"XDG_CONFIG_HOME": t.TempDir()}
	tests := []struct {
		name string
		opts Flags
		env  map[string]string
		want []string
	}{
		{"no model", Flags{}, xdg, []string{"--model", "AGENT_MODEL"}},
		{"no key for a remote server", Flags{Model: "m"}, xdg, []string{"OPENAI_API_KEY"}},
		{"unknown profile", Flags{Model: "m", ConfigPath: writeConfig(t, twoProfiles), Profile: "nope"}, nil, []string{"nope", "ollama, remote"}},
		{"explicit config missing", Flags{ConfigPath: "/nonexistent/agent.toml"}, nil, []string{"/nonexistent/agent.toml"}},
		{"unknown config key", Flags{ConfigPath: writeConfig(t, "modle = 'x'\n")}, nil, []string{"modle"}},
		{"bad base URL", Flags{Model: "m", BaseURL: "localhost:8080"}, xdg, []string{"http(s)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.opts
			o.MaxRetries = -1
			_, err := resolve(&o, envOf(tt.env))
			var ue UsageError
			if !errors.As(err, &ue) {
				t.Fatalf("want a usage error, got %v", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if !errors.As(err, new(UsageError)) {
				t.Errorf("%v is no usage error (exit code 2)", err)
			}
		})
	}
}

func TestLocalServersNeedNoKey(t *testing.T) {
	for _, u := range []string{"http://localhost:11434/v1", "http://127.0.0.1:8080/v1", "http://[::1]:1234/v1"} {
		o := Flags{Model: "m", BaseURL: u, MaxRetries: -1}
		if _, err := resolve(&o, envOf(map[string]string{"XDG_CONFIG_HOME": t.TempDir()})); err != nil {
			t.Errorf("%s: %v", u, err)
		}
	}
}

func TestContextWindowAndAutoCompact(t *testing.T) {
	tests := []struct {
		name    string
		config  string
		window  int
		compact float64
		bad     string
	}{
		{"defaults", ``, 0, profile.DefaultAutoCompact, ""},
		{"top level", "context_window = 16000\nauto_compact = 0.5", 16000, 0.5, ""},
		{"the profile's own wins", "context_window = 16000\nauto_compact = 0.5\n[profiles.p]\nmodel = \"m\"\ncontext_window = 1500\nauto_compact = 0",
			1500, 0, ""},
		{"a profile inherits the top level", "context_window = 16000\n[profiles.p]\nmodel = \"m\"", 16000, profile.DefaultAutoCompact, ""},
		{"auto_compact past 1", "auto_compact = 80", 0, 0, "auto_compact"},
		{"negative window", "context_window = -5", 0, 0, "context_window"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := Flags{Model: "m", BaseURL: "http://localhost:1/v1", MaxRetries: -1, ConfigPath: writeConfig(t, tt.config)}
			s, err := resolve(&o, envOf(nil))
			if tt.bad != "" {
				if err == nil || !strings.Contains(err.Error(), tt.bad) {
					t.Fatalf("err = %v, want one naming %s", err, tt.bad)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.ContextWindow != tt.window || s.AutoCompact != tt.compact {
				t.Errorf("window %d, auto_compact %g; want %d, %g", s.ContextWindow, s.AutoCompact, tt.window, tt.compact)
			}
		})
	}
}

// AGENT_LSP=off turns the language servers off for a run, over the config
// file, as [lsp] enabled = false does.
func TestAgentLSPOffTurnsTheLanguageServersOff(t *testing.T) {
	env := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "OPENAI_API_KEY": "sk-test", "AGENT_MODEL": "m"}
	s, err := resolve(&Flags{MaxRetries: -1}, envOf(env))
	if err != nil || s.LSP.Off {
		t.Fatalf("without AGENT_LSP: off %v (%v)", s.LSP.Off, err)
	}
	env["AGENT_LSP"] = "off"
	if s, err = resolve(&Flags{MaxRetries: -1}, envOf(env)); err != nil || !s.LSP.Off {
		t.Errorf("AGENT_LSP=off: off %v (%v)", s.LSP.Off, err)
	}
}
