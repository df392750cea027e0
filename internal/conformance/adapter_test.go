package conformance

import (
	"strings"
	"testing"
)

// TestConfig: a scenario's config names its server; for the auth
// scenarios the context's credentials go to the [oauth] table, the secrets
// as ${VAR} references with their values in the environment, never in
// the file; client-credentials scenarios ask for that grant.
func TestConfig(t *testing.T) {
	cfg, env := Config("tools_call", "http://localhost:1/mcp", nil)
	if !strings.Contains(cfg, `url = "http://localhost:1/mcp"`) || strings.Contains(cfg, "oauth") || env != nil {
		t.Errorf("tools_call: %s %v", cfg, env)
	}
	ctx := map[string]any{"client_id": "cid", "private_key_pem": "-----BEGIN KEY-----", "signing_algorithm": "ES256", "unknown": "x"}
	cfg, env = Config("auth/client-credentials-jwt", "http://localhost:2/mcp", ctx)
	for _, want := range []string{"[mcp.servers.conformance.oauth]", `grant_type = "client_credentials"`, `client_id = "cid"`,
		`private_key_pem = "${CONFORMANCE_PRIVATE_KEY_PEM}"`, `signing_algorithm = "ES256"`} {
		if !strings.Contains(cfg, want) {
			t.Errorf("config lacks %s:\n%s", want, cfg)
		}
	}
	if strings.Contains(cfg, "BEGIN KEY") || strings.Contains(cfg, "unknown") || len(env) != 1 || env[0] != "CONFORMANCE_PRIVATE_KEY_PEM=-----BEGIN KEY-----" {
		t.Errorf("secret handling: %s %v", cfg, env)
	}
	if c, ok := Plan("auth/scope-step-up"); !ok || c.Tool != "test-tool" {
		t.Errorf("plan of an auth scenario: %+v %v", c, ok)
	}
	if _, ok := Plan("initialize"); ok {
		t.Error("initialize calls a tool")
	}
}
