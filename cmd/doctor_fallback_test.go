package cmd

import (
	"strings"
	"testing"
)

// agent doctor lists the fallback models and where each is sent.
func TestDoctorListsTheFallbackModels(t *testing.T) {
	cfg := writeConfig(t, `[profiles.main]
base_url = "http://127.0.0.1:1/v1"
model = "big"
fallback_models = ["small", "local"]
[profiles.local]
base_url = "http://127.0.0.1:2/v1"
model = "tiny"
`)
	out, _ := doctor(t, cfg, map[string]string{"AGENT_PROFILE": "main"})
	for _, want := range []string{"fallback 1       small (the same server;", "fallback 2       tiny (profile local: openai http://127.0.0.1:2/v1;"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor lacks %q:\n%s", want, out)
		}
	}
}
