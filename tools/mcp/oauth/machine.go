package oauth

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// grantFunc obtains an access token for scopes from the authorization
// server d found, without a person.
type grantFunc func(ctx context.Context, m *machine, d *discovery, scopes []string) (*oauth2.Token, error)

// machine is a server authorized without a person: client credentials or
// cross-app access. Its token lives in memory; the grant runs again
// before the token expires, and on a 401.
type machine struct {
	cfg   Config
	o     Options
	grant grantFunc

	mu      sync.Mutex
	tok     *oauth2.Token
	d       *discovery // of the last authorization, for renewals
	granted []string
}

var (
	_ auth.OAuthHandler  = (*machine)(nil)
	_ oauth2.TokenSource = (*machine)(nil)
)

func newMachine(cfg Config, o Options, g grantFunc) *machine {
	return &machine{cfg: cfg, o: o, grant: g}
}

// TokenSource returns the machine itself.
func (m *machine) TokenSource(context.Context) (oauth2.TokenSource, error) { return m, nil }

// Token returns the access token, obtained again RefreshMargin before it
// expires; nil (and no error) when there is none yet.
func (m *machine) Token() (*oauth2.Token, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.tok != nil && (m.tok.Expiry.IsZero() || time.Until(m.tok.Expiry) > RefreshMargin) {
		return m.tok, nil
	}
	if m.d != nil {
		ctx, cancel := context.WithTimeout(context.Background(), refreshTimeout)
		defer cancel()
		tok, err := m.grant(ctx, m, m.d, m.granted)
		if err == nil {
			m.tok = tok
			return tok, nil
		}
		m.o.notify("MCP server %s: renewing its token failed (%s)", m.o.Server, describe(err))
	}
	if m.tok != nil && time.Now().Before(m.tok.Expiry) {
		return m.tok, nil
	}
	return nil, nil
}

// Authorize discovers the authorization server and runs the grant, after
// a 401 or a 403 insufficient_scope (then with the challenge's scopes
// added to those granted).
func (m *machine) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	challenges, err := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	if err != nil {
		return fmt.Errorf("MCP server %s: the WWW-Authenticate header: %w", m.o.Server, err)
	}
	if resp.StatusCode == http.StatusForbidden && challengeError(challenges) != "insufficient_scope" {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.tok != nil && req.Header.Get("Authorization") != "Bearer "+m.tok.AccessToken && resp.StatusCode == http.StatusUnauthorized {
		return nil // another request authorized meanwhile
	}
	d, err := discover(ctx, m.o.client(), req.URL.String(), challenges)
	if err != nil {
		return fmt.Errorf("MCP server %s: %w", m.o.Server, err)
	}
	scopes := union(union(m.granted, d.scopes), m.cfg.Scopes)
	tok, err := m.grant(ctx, m, d, scopes)
	if err != nil {
		return fmt.Errorf("MCP server %s: %s", m.o.Server, describe(err))
	}
	m.tok, m.d, m.granted = tok, d, scopes
	return nil
}

// secretStyle is how a client secret goes to a token endpoint that
// supports methods: client_secret_basic when listed (or nothing is: it is
// RFC 6749's default), else client_secret_post.
func secretStyle(methods []string) oauth2.AuthStyle {
	if len(methods) == 0 || slices.Contains(methods, "client_secret_basic") || !slices.Contains(methods, "client_secret_post") {
		return oauth2.AuthStyleInHeader
	}
	return oauth2.AuthStyleInParams
}

// clientCredentialsGrant is the client credentials grant (RFC 6749 §4.4,
// SEP-1046) with the client secret or a private_key_jwt assertion, and the
// resource parameter (RFC 8707).
func clientCredentialsGrant(ctx context.Context, m *machine, d *discovery, scopes []string) (*oauth2.Token, error) {
	params := url.Values{}
	if d.resource != "" {
		params.Set("resource", d.resource)
	}
	cc := clientcredentials.Config{ClientID: m.cfg.ClientID, TokenURL: d.asm.TokenEndpoint, Scopes: scopes, EndpointParams: params}
	if m.cfg.PrivateKeyPEM != "" {
		a, err := clientAssertion(m.cfg.PrivateKeyPEM, m.cfg.SigningAlgorithm, m.cfg.ClientID, d.asm.Issuer)
		if err != nil {
			return nil, err
		}
		params.Set("client_assertion_type", assertionType)
		params.Set("client_assertion", a)
		cc.AuthStyle = oauth2.AuthStyleInParams
	} else {
		cc.ClientSecret = m.cfg.ClientSecret
		cc.AuthStyle = secretStyle(d.asm.TokenEndpointAuthMethodsSupported)
	}
	return cc.Token(context.WithValue(ctx, oauth2.HTTPClient, m.o.client()))
}

// jwtBearer is the grant type of RFC 7523 §2.1.
const jwtBearer = "urn:ietf:params:oauth:grant-type:jwt-bearer"

// enterpriseGrant is cross-app access (SEP-990): the ID token is
// exchanged at the identity provider for an ID-JAG (RFC 8693, through the
// SDK's oauthex.ExchangeToken), which the MCP server's authorization
// server takes as a JWT bearer grant (RFC 7523) from the client
// registered there.
func enterpriseGrant(ctx context.Context, m *machine, d *discovery, scopes []string) (*oauth2.Token, error) {
	client := m.o.client()
	idpToken := m.cfg.IdPTokenEndpoint
	if idpToken == "" {
		meta, err := auth.GetAuthServerMetadata(ctx, m.cfg.IdPIssuer, client)
		if err != nil {
			return nil, fmt.Errorf("the identity provider's metadata: %w", err)
		}
		if meta == nil || meta.TokenEndpoint == "" {
			return nil, fmt.Errorf("the identity provider %s publishes no token endpoint", m.cfg.IdPIssuer)
		}
		idpToken = meta.TokenEndpoint
	}
	idp := &oauthex.ClientCredentials{ClientID: m.cfg.IdPClientID}
	if m.cfg.IdPClientSecret != "" {
		idp.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: m.cfg.IdPClientSecret}
	}
	jag, err := oauthex.ExchangeToken(ctx, idpToken, &oauthex.TokenExchangeRequest{
		RequestedTokenType: oauthex.TokenTypeIDJAG, Audience: d.asm.Issuer, Resource: d.resource, Scope: scopes,
		SubjectToken: m.cfg.IdPIDToken, SubjectTokenType: oauthex.TokenTypeIDToken,
	}, idp, client)
	if err != nil {
		return nil, fmt.Errorf("the token exchange at the identity provider: %s", describe(err))
	}
	cfg := oauth2.Config{ClientID: m.cfg.ClientID, ClientSecret: m.cfg.ClientSecret,
		Endpoint: oauth2.Endpoint{TokenURL: d.asm.TokenEndpoint, AuthStyle: secretStyle(d.asm.TokenEndpointAuthMethodsSupported)}}
	opts := []oauth2.AuthCodeOption{oauth2.SetAuthURLParam("grant_type", jwtBearer), oauth2.SetAuthURLParam("assertion", jag.AccessToken)}
	if len(scopes) > 0 {
		opts = append(opts, oauth2.SetAuthURLParam("scope", strings.Join(scopes, " ")))
	}
	tok, err := cfg.Exchange(context.WithValue(ctx, oauth2.HTTPClient, client), "", opts...)
	if err != nil {
		return nil, fmt.Errorf("the JWT bearer grant: %s", describe(err))
	}
	return tok, nil
}
