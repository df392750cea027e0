package host

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/agent-dev/agent/tools/mcp"
	"github.com/agent-dev/agent/tools/mcp/oauth"
	"github.com/agent-dev/agent/tools/shell"
)

// oauthFile is the directory of the stored authorizations in the data
// directory.
const oauthDir = "mcp-oauth"

// authTimeout is how long a server's start may wait, from the beginning of
// an authorization, for a person to authorize agent in the browser.
const authTimeout = 5 * time.Minute

// attachOAuth gives every streamable HTTP server its authorization
// handler (authorization code with dynamic registration unless its oauth
// table says otherwise); the handler acts only when the server answers
// 401. With interactive, an authorization during a server's start gives
// the start authTimeout more, for the person in the browser; without, a
// server that needs a person fails at once, saying to run agent mcp login. The browser
// gets the environment bash commands get (filter: no provider key, nothing
// that looks like a secret) and none of the oauth tables' secrets.
func attachOAuth(cfgs []mcp.Config, store *oauth.Store, notify func(string), filter shell.EnvFilter, interactive bool) {
	// Filtered when a browser opens: most sessions never open one.
	env := sync.OnceValue(func() []string { return browserEnv(cfgs, filter) })
	for i := range cfgs {
		c := &cfgs[i]
		if c.URL == "" || c.SSE || c.Skipped != "" || c.Disabled {
			continue
		}
		oc := oauth.Config{}
		if c.OAuth != nil {
			oc = *c.OAuth
		}
		browser := func(u string) error { return oauth.OpenBrowser(u, os.Getenv, env()) }
		if !interactive {
			browser = func(string) error { return oauth.ErrLoginNeeded }
		}
		h, err := oauth.New(oc, oauth.Options{Server: c.Name, URL: c.URL, Store: store, Notify: notify, Browser: browser})
		if err != nil {
			c.Skipped = err.Error()
			continue
		}
		c.Auth = h
		if interactive {
			c.AuthTimeout = authTimeout
		}
	}
}

// mcpLogin authorizes the configured server name now, for the interface's
// /mcp login NAME: a handler like the session's, oauth.Login's probe, and
// a line saying what became of it. The running server's own handler reads
// the stored tokens at its next request; a server that failed at its start
// starts with them at agent's next start.
func (a *agent) mcpLogin(name string) string {
	var c *mcp.Config
	for i := range a.mcpCfgs {
		if a.mcpCfgs[i].Name == name {
			c = &a.mcpCfgs[i]
		}
	}
	switch {
	case c == nil:
		return fmt.Sprintf("No MCP server named %s; /mcp lists them.", name)
	case c.URL == "" || c.SSE:
		return fmt.Sprintf("MCP server %s is not a streamable HTTP server: OAuth is for those.", name)
	case c.Skipped != "":
		return fmt.Sprintf("MCP server %s is skipped: %s.", name, c.Skipped)
	}
	one := []mcp.Config{*c}
	one[0].Auth, one[0].Disabled = nil, false
	attachOAuth(one, a.oauth, a.mcpWarn, a.settings.EnvFilter(), true)
	if one[0].Auth == nil {
		return fmt.Sprintf("MCP server %s: %s.", name, one[0].Skipped)
	}
	ctx, cancel := context.WithTimeout(context.Background(), authTimeout)
	defer cancel()
	asked, err := oauth.Login(ctx, one[0].Auth, c.URL, nil)
	switch {
	case err != nil:
		return fmt.Sprintf("Logging in to MCP server %s failed: %v", name, err)
	case !asked:
		return fmt.Sprintf("MCP server %s accepts agent as it is: nothing to log in to.", name)
	}
	if a.mcp != nil {
		for _, s := range a.mcp.Status() {
			if s.Name == name && s.State == mcp.StateRunning {
				return fmt.Sprintf("Logged in to MCP server %s; the running server uses the new tokens from its next request.", name)
			}
		}
	}
	return fmt.Sprintf("Logged in to MCP server %s; it starts with the stored tokens at agent's next start.", name)
}

// browserEnv is the environment a browser opened for a server gets: bash
// commands' (filter: no provider key, nothing that looks like a secret)
// without the values of cfgs' OAuth secrets.
func browserEnv(cfgs []mcp.Config, filter shell.EnvFilter) []string {
	secrets := map[string]bool{}
	for _, c := range cfgs {
		if c.OAuth != nil {
			for _, v := range []string{c.OAuth.ClientSecret, c.OAuth.PrivateKeyPEM, c.OAuth.IdPClientSecret, c.OAuth.IdPIDToken} {
				if v != "" {
					secrets[v] = true
				}
			}
		}
	}
	var env []string
	for _, kv := range filter.Environ(os.Environ()) {
		if _, v, _ := strings.Cut(kv, "="); !secrets[v] {
			env = append(env, kv)
		}
	}
	return env
}
