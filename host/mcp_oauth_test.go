package host

import (
	"strings"
	"testing"
)

// TestMCPOAuthConfig: the [oauth] table expands ${VAR} in its secrets,
// skips the server when one is not set, and refuses a table that cannot
// work with a usage error naming the server.
func TestMCPOAuthConfig(t *testing.T) {
	env := map[string]string{"SECRET": "s3cret"}
	getenv := func(k string) string { return env[k] }
	servers := map[string]MCPServer{
		"ok":      {URL: "https://a.example/mcp", OAuth: &mcpOAuthConfig{ClientID: "agent", ClientSecret: "${SECRET}", Scopes: []string{"read"}}},
		"missing": {URL: "https://b.example/mcp", OAuth: &mcpOAuthConfig{ClientID: "agent", ClientSecret: "${UNSET_SECRET}"}},
	}
	cfgs, err := mcpServers(servers, "config", t.TempDir(), nil, getenv)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for i, c := range cfgs {
		got[c.Name] = i
	}
	ok, missing := cfgs[got["ok"]], cfgs[got["missing"]]
	if ok.OAuth == nil || ok.OAuth.ClientSecret != "s3cret" || ok.Skipped != "" {
		t.Errorf("ok: %+v", ok)
	}
	if !strings.Contains(missing.Skipped, "$UNSET_SECRET") {
		t.Errorf("missing: skipped %q", missing.Skipped)
	}
	for name, sc := range map[string]MCPServer{
		"stdio":    {Command: "srv", OAuth: &mcpOAuthConfig{}},
		"sse":      {URL: "https://c.example/sse", Transport: "sse", OAuth: &mcpOAuthConfig{}},
		"badgrant": {URL: "https://d.example/mcp", OAuth: &mcpOAuthConfig{GrantType: "password"}},
		"nosecret": {URL: "https://e.example/mcp", OAuth: &mcpOAuthConfig{GrantType: "client_credentials", ClientID: "m"}},
	} {
		_, err := mcpServers(map[string]MCPServer{name: sc}, "config", t.TempDir(), nil, getenv)
		if err == nil || !strings.Contains(err.Error(), "mcp server "+name) {
			t.Errorf("%s: %v, want a usage error naming it", name, err)
		}
	}
}
