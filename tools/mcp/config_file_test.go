package mcp

import (
	"strings"
	"testing"
)

// TestOAuthTables: the [oauth] table expands ${VAR} in its secrets,
// skips the server when one is not set, and refuses a table that cannot
// work with an error naming the server.
func TestOAuthTables(t *testing.T) {
	env := map[string]string{"SECRET": "s3cret"}
	getenv := func(k string) string { return env[k] }
	servers := map[string]ServerDef{
		"ok":      {URL: "https://a.example/mcp", OAuth: &OAuthDef{ClientID: "agent", ClientSecret: "${SECRET}", Scopes: []string{"read"}}},
		"missing": {URL: "https://b.example/mcp", OAuth: &OAuthDef{ClientID: "agent", ClientSecret: "${UNSET_SECRET}"}},
	}
	cfgs, err := Resolve(servers, "config", t.TempDir(), nil, getenv)
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
	for name, sc := range map[string]ServerDef{
		"stdio":    {Command: "srv", OAuth: &OAuthDef{}},
		"sse":      {URL: "https://c.example/sse", Transport: "sse", OAuth: &OAuthDef{}},
		"badgrant": {URL: "https://d.example/mcp", OAuth: &OAuthDef{GrantType: "password"}},
		"nosecret": {URL: "https://e.example/mcp", OAuth: &OAuthDef{GrantType: "client_credentials", ClientID: "m"}},
	} {
		_, err := Resolve(map[string]ServerDef{name: sc}, "config", t.TempDir(), nil, getenv)
		if err == nil || !strings.Contains(err.Error(), "mcp server "+name) {
			t.Errorf("%s: %v, want an error naming it", name, err)
		}
	}
}
