package e2e

import (
	"encoding/json"
	"testing"

	sa "github.com/agent-dev/agent/internal/scriptedanthropic"
)

// AnthropicArgs are the flags that point the agent at an Anthropic server.
func AnthropicArgs(srv *sa.Server, args ...string) []string {
	return append([]string{"--provider", "anthropic", "--base-url", srv.URL(), "--model", "claude-sonnet-4-5", "--max-retries", "0"}, args...)
}

// ImageSources are the base64 data of every image block of an Anthropic
// request, in order, tool results' included.
func ImageSources(t *testing.T, body []byte) []string {
	t.Helper()
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if v["type"] == "image" {
				if src, ok := v["source"].(map[string]any); ok && src["type"] == "base64" {
					out = append(out, src["data"].(string))
				}
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	var req struct{ Messages []any }
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	walk(req.Messages)
	return out
}
