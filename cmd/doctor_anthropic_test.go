package cmd

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// anthropicModelsServer answers GET /v1/models as Anthropic's API does,
// with 401 for a request without the x-api-key key.
func anthropicModelsServer(t *testing.T, key string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if r.Header.Get("X-Api-Key") != key || r.Header.Get("Anthropic-Version") == "" {
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`))
			return
		}
		w.Write([]byte(`{"data":[{"type":"model","id":"claude-sonnet-4-5","display_name":"Claude Sonnet 4.5","created_at":"2025-09-29T00:00:00Z"}],"has_more":false,"first_id":"claude-sonnet-4-5","last_id":"claude-sonnet-4-5"}`))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestDoctorAnthropic(t *testing.T) {
	url := anthropicModelsServer(t, "sk-ant-doctor")
	config := writeConfig(t, "[profiles.claude]\nprovider = \"anthropic\"\nmodel = \"claude-sonnet-4-5\"\nbase_url = \""+url+"\"\n")
	out, _ := doctor(t, config, map[string]string{"ANTHROPIC_API_KEY": "sk-ant-doctor"})
	for _, want := range []string{"provider           anthropic " + url, "API key from ANTHROPIC_API_KEY", "yes, 1 models", "model listed"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out)
		}
	}
	out, code := doctor(t, config, map[string]string{"ANTHROPIC_API_KEY": "sk-ant-wrong"})
	if code != ExitRuntime || !strings.Contains(out, "NO:") || !strings.Contains(out, "invalid x-api-key") || strings.Contains(out, "sk-ant-wrong") {
		t.Errorf("a refused key: exit %d\n%s", code, out)
	}
}
