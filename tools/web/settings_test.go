package web

import (
	"slices"
	"strings"
	"testing"
)

// [web_fetch] private_hosts takes hosts and host:port; a URL or a path,
// which would never match a request, is refused naming the entry.
func TestResolveConfig(t *testing.T) {
	c, err := ResolveConfig(File{PrivateHosts: []string{"docs.internal", "localhost:6060"}}, "config c.toml")
	if err != nil || !slices.Equal(c.PrivateHosts, []string{"docs.internal", "localhost:6060"}) {
		t.Errorf("hosts: %+v, %v", c, err)
	}
	for _, bad := range []string{"http://localhost:6060", "docs.internal/api", ""} {
		if _, err := ResolveConfig(File{PrivateHosts: []string{bad}}, "config c.toml"); err == nil || !strings.Contains(err.Error(), "config c.toml: web_fetch: private_hosts") {
			t.Errorf("%q: %v, want an error naming the entry", bad, err)
		}
	}
}
