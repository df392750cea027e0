package host

import (
	"slices"
	"testing"

	"github.com/agent-dev/agent/tools/mcp"
	"github.com/agent-dev/agent/tools/mcp/oauth"
	"github.com/agent-dev/agent/tools/shell"
)

// A browser opened for a server's authorization gets the environment bash
// commands get, without the provider's key and the oauth tables' secrets.
func TestTheBrowserGetsNoKeyAndNoOAuthSecret(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-provider")
	t.Setenv("BROWSER_TEST_SECRET_FROM_CONFIG", "the-client-secret")
	t.Setenv("BROWSER_TEST_PLAIN", "plain")
	cfgs := []mcp.Config{{Name: "s", URL: "http://127.0.0.1:1/mcp", OAuth: &oauth.Config{ClientID: "c", ClientSecret: "the-client-secret"}}}
	env := browserEnv(cfgs, shell.EnvFilter{Strip: []string{"OPENAI_API_KEY"}})
	if !slices.Contains(env, "BROWSER_TEST_PLAIN=plain") {
		t.Errorf("the browser lost a plain variable: %q", env)
	}
	for _, kv := range env {
		if kv == "OPENAI_API_KEY=sk-provider" || kv == "BROWSER_TEST_SECRET_FROM_CONFIG=the-client-secret" {
			t.Errorf("the browser's environment holds %s", kv)
		}
	}
}
