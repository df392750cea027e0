package oauth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// codeFlow is the authorization code flow with PKCE (the SDK's
// AuthorizationCodeHandler) behind a loopback redirect, with its tokens
// in the store.
type codeFlow struct {
	cfg Config
	o   Options
	src *source

	mu   sync.Mutex // one authorization at a time
	sdk  *auth.AuthorizationCodeHandler
	port int          // the loopback port sdk's redirect URI names
	ln   net.Listener // the loopback listener during a flow
}

var _ auth.OAuthHandler = (*codeFlow)(nil)

func newCodeFlow(cfg Config, o Options) *codeFlow {
	return &codeFlow{cfg: cfg, o: o, src: &source{store: o.Store, server: o.Server, url: o.URL, client: o.client(), notify: o.notify}}
}

// TokenSource returns the stored, refreshing token source; its Token is
// nil while there is no authorization.
func (c *codeFlow) TokenSource(context.Context) (oauth2.TokenSource, error) { return c.src, nil }

// Authorize runs the authorization code flow after a 401, or after a 403
// whose challenge is insufficient_scope (step-up: the scopes granted so far
// plus the challenge's). When another request's authorization finished
// while this one waited, it only lets the request be sent again.
func (c *codeFlow) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	defer resp.Body.Close() // the SDK's Authorize closes it too, on every path but ours
	c.mu.Lock()
	defer c.mu.Unlock()
	if tok := c.src.current(); tok != nil && req.Header.Get("Authorization") != "Bearer "+tok.AccessToken && resp.StatusCode == http.StatusUnauthorized {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return nil
	}
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", c.port))
	if err != nil && c.port != 0 {
		// The port of the first flow is taken: a new redirect URI, and
		// so a new SDK handler (the granted scopes start again).
		c.sdk, c.port = nil, 0
		ln, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		return fmt.Errorf("listening for the authorization redirect: %w", err)
	}
	c.ln = ln
	defer ln.Close()
	if c.sdk == nil {
		c.port = ln.Addr().(*net.TCPAddr).Port
		if c.sdk, err = c.newSDK(fmt.Sprintf("http://127.0.0.1:%d/callback", c.port)); err != nil {
			return err
		}
	}
	if err := c.sdk.Authorize(ctx, req, resp); err != nil {
		return fmt.Errorf("authorizing with MCP server %s: %w", c.o.Server, err)
	}
	return nil
}

// newSDK returns the SDK's handler for the redirect URI: a client ID
// metadata document, the pre-registered client or dynamic registration,
// whichever the authorization server supports first.
func (c *codeFlow) newSDK(redirect string) (*auth.AuthorizationCodeHandler, error) {
	hc := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:              redirect,
		AuthorizationCodeFetcher: c.fetch,
		ScopeFilter:              func(found []string) []string { return union(found, c.cfg.Scopes) },
		RequestRefreshToken:      true,
		Client:                   legacyClient(c.o.client(), c.o.URL),
		NewTokenSource: func(_ context.Context, oc *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
			rec := &record{URL: c.o.URL, ClientID: oc.ClientID, ClientSecret: oc.ClientSecret, AuthURL: oc.Endpoint.AuthURL,
				TokenURL: oc.Endpoint.TokenURL, AuthStyle: int(oc.Endpoint.AuthStyle), RedirectURL: oc.RedirectURL, Scopes: oc.Scopes, Token: tok}
			if err := c.src.set(rec); err != nil {
				c.o.notify("MCP server %s: %v; the token lasts for this session only", c.o.Server, err)
			}
			return c.src, nil
		},
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs:  []string{redirect},
			ClientName:    "agent",
			GrantTypes:    []string{"authorization_code", "refresh_token"},
			ResponseTypes: []string{"code"},
		}},
	}
	if c.cfg.ClientMetadataURL != "" {
		hc.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: c.cfg.ClientMetadataURL}
	}
	if c.cfg.ClientID != "" {
		hc.PreregisteredClient = &oauthex.ClientCredentials{ClientID: c.cfg.ClientID}
		if c.cfg.ClientSecret != "" {
			hc.PreregisteredClient.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: c.cfg.ClientSecret}
		}
	}
	h, err := auth.NewAuthorizationCodeHandler(hc)
	if err != nil {
		return nil, fmt.Errorf("MCP server %s: the OAuth configuration: %w", c.o.Server, err)
	}
	return h, nil
}

// fetch sends the person to the authorization URL (the browser, and the
// URL printed for a machine without one) and waits on the loopback
// listener for the redirect that carries the code.
func (c *codeFlow) fetch(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
	cb, err := newCallback(args.URL, c.o.Server)
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: cb, ReadHeaderTimeout: refreshTimeout}
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = srv.Serve(c.ln)
	}()
	defer func() {
		srv.Close()
		<-served
	}()
	open := c.o.Browser
	if open == nil {
		open = func(u string) error { return OpenBrowser(u, getenvOS, nil) }
	}
	err = open(args.URL)
	if errors.Is(err, ErrLoginNeeded) {
		return nil, fmt.Errorf("%w: run agent mcp login %s", ErrLoginNeeded, c.o.Server)
	}
	c.o.notify("MCP server %s needs authorization: open %s", c.o.Server, args.URL)
	if err != nil {
		c.o.notify("MCP server %s: %v; open the URL above in a browser", c.o.Server, err)
	}
	select {
	case r := <-cb.result:
		if r.err != nil {
			return nil, r.err
		}
		return r.res, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for the authorization in the browser: %w", ctx.Err())
	}
}

// union is a followed by the elements of b it lacks.
func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
