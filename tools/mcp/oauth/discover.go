package oauth

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// discovery is what a 401 leads to: the protected resource (RFC 9728),
// its authorization server's metadata (RFC 8414 / OpenID discovery), and
// the scopes the challenge asked for.
type discovery struct {
	resource string
	prm      *oauthex.ProtectedResourceMetadata
	asm      *oauthex.AuthServerMeta
	scopes   []string // the challenge's, else the resource's scopes_supported
}

// discover follows the challenges of a 401 or 403 to the authorization
// server of the MCP endpoint serverURL: the challenge's resource_metadata,
// else the well-known URLs at the endpoint's path and at the root, else
// (MCP 2025-03-26) the endpoint's origin as the authorization server with
// its default endpoints.
func discover(ctx context.Context, client *http.Client, serverURL string, challenges []oauthex.Challenge) (*discovery, error) {
	d := &discovery{}
	u, err := url.Parse(serverURL)
	if err != nil {
		return nil, fmt.Errorf("the server's URL: %w", err)
	}
	origin := &url.URL{Scheme: u.Scheme, Host: u.Host}
	type try struct{ meta, resource string }
	var tries []try
	for _, c := range challenges {
		if m := c.Params["resource_metadata"]; m != "" {
			tries = append(tries, try{m, serverURL})
			break
		}
	}
	tries = append(tries,
		try{origin.String() + "/.well-known/oauth-protected-resource/" + strings.TrimLeft(u.Path, "/"), serverURL},
		try{origin.String() + "/.well-known/oauth-protected-resource", origin.String()})
	for _, t := range tries {
		prm, err := oauthex.GetProtectedResourceMetadata(ctx, t.meta, t.resource, client)
		if err != nil || prm == nil {
			continue
		}
		if len(prm.AuthorizationServers) == 0 {
			return nil, fmt.Errorf("the protected resource metadata at %s names no authorization server", t.meta)
		}
		d.prm = prm
		break
	}
	if d.prm == nil {
		d.prm = &oauthex.ProtectedResourceMetadata{Resource: serverURL, AuthorizationServers: []string{origin.String()}}
	}
	d.resource = d.prm.Resource
	issuer := d.prm.AuthorizationServers[0]
	if d.asm, err = auth.GetAuthServerMetadata(ctx, issuer, client); err != nil {
		return nil, fmt.Errorf("the authorization server metadata of %s: %w", issuer, err)
	}
	if d.asm == nil {
		d.asm = &oauthex.AuthServerMeta{Issuer: issuer, AuthorizationEndpoint: issuer + "/authorize", TokenEndpoint: issuer + "/token"}
	}
	for _, c := range challenges {
		if c.Scheme == "bearer" && c.Params["scope"] != "" {
			d.scopes = strings.Fields(c.Params["scope"])
			break
		}
	}
	if len(d.scopes) == 0 {
		d.scopes = d.prm.ScopesSupported
	}
	return d, nil
}

// challengeError is the error of a Bearer challenge ("insufficient_scope").
func challengeError(challenges []oauthex.Challenge) string {
	for _, c := range challenges {
		if c.Scheme == "bearer" && c.Params["error"] != "" {
			return c.Params["error"]
		}
	}
	return ""
}
