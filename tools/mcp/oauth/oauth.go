// Package oauth authorizes agent's requests to HTTP MCP servers, as the MCP
// authorization specification (2025-11-25) requires, through the official
// go-sdk's auth and oauthex packages where they do the work:
//
//   - discovery: protected resource metadata (RFC 9728) from the 401's
//     WWW-Authenticate or the well-known paths, then authorization server
//     metadata (RFC 8414, OpenID Connect discovery), with the 2025-03-26
//     fallbacks;
//   - the client: a client ID metadata document (client_metadata_url), a
//     pre-registered client (client_id, client_secret), or dynamic client
//     registration (RFC 7591), in that order;
//   - authorization code with PKCE S256 through a loopback redirect on
//     127.0.0.1 with a state check, the resource parameter (RFC 8707),
//     scopes from the challenge or the metadata (plus configured ones),
//     step-up on 403 insufficient_scope, offline_access and refresh;
//   - client credentials (SEP-1046) with client_secret_basic/post or
//     private_key_jwt (RFC 7523), which the SDK's handler lacks;
//   - cross-app access (enterprise-managed authorization, SEP-990): an ID
//     token exchanged at the identity provider (RFC 8693) for an ID-JAG,
//     exchanged at the MCP server's authorization server (RFC 7523 JWT
//     bearer grant) for an access token.
//
// Authorization-code tokens are kept per server in a Store (a 0600 file in
// agent's data directory) and refreshed before they expire; a running
// session reads a token another process (agent mcp login) wrote. Tokens
// and secrets never reach a log line or an error message.
package oauth

import (
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"runtime"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// ErrLoginNeeded is what an Options.Browser returns where no browser may
// open (agent mcp list): the authorization then fails at once, saying to
// run agent mcp login.
var ErrLoginNeeded = errors.New("needs authorization")

// Grant types of Config.GrantType.
const (
	GrantAuthorizationCode = "authorization_code"
	GrantClientCredentials = "client_credentials"
)

// Config is a server's [mcp.servers.NAME.oauth] table, with ${VAR}
// references already expanded. Every field is optional: without any, the
// authorization code flow registers a client dynamically.
type Config struct {
	// ClientID and ClientSecret are a client registered with the
	// server's authorization server beforehand (ClientSecret empty: a
	// public client).
	ClientID     string
	ClientSecret string
	// PrivateKeyPEM (PKCS#8, PKCS#1 or SEC 1 PEM) signs the client
	// assertion of private_key_jwt client authentication (RFC 7523), with
	// SigningAlgorithm (RS256, RS384, RS512, PS256, ES256, ES384, ES512;
	// default RS256 for an RSA key, ES256 for an EC key).
	PrivateKeyPEM    string
	SigningAlgorithm string
	// GrantType is GrantAuthorizationCode (the default) or
	// GrantClientCredentials (a machine client: no browser, no person).
	GrantType string
	// ClientMetadataURL is the HTTPS URL of a client ID metadata document
	// that describes agent, used as the client ID where the authorization
	// server supports them.
	ClientMetadataURL string
	// Scopes are requested besides those the server asks for.
	Scopes []string
	// The identity provider of cross-app access (enterprise-managed
	// authorization): its issuer (for discovery) or token endpoint, the
	// client registered there, and the ID token to exchange. Setting
	// IdPIDToken and one of IdPIssuer/IdPTokenEndpoint selects this flow;
	// ClientID and ClientSecret are then the client registered at the MCP
	// server's authorization server.
	IdPIssuer        string
	IdPTokenEndpoint string
	IdPClientID      string
	IdPClientSecret  string
	IdPIDToken       string
}

// Enterprise reports whether c selects cross-app access.
func (c *Config) Enterprise() bool {
	return c.IdPIDToken != "" && (c.IdPIssuer != "" || c.IdPTokenEndpoint != "")
}

// Validate reports a setting that cannot work, in words for the config's
// author.
func (c *Config) Validate() error {
	switch c.GrantType {
	case "", GrantAuthorizationCode:
	case GrantClientCredentials:
		if c.ClientID == "" {
			return fmt.Errorf("grant_type client_credentials needs client_id")
		}
		if c.ClientSecret == "" && c.PrivateKeyPEM == "" {
			return fmt.Errorf("grant_type client_credentials needs client_secret or private_key_pem")
		}
	default:
		return fmt.Errorf("grant_type %q: use authorization_code or client_credentials", c.GrantType)
	}
	if c.ClientSecret != "" && c.ClientID == "" {
		return fmt.Errorf("client_secret needs client_id")
	}
	if c.PrivateKeyPEM != "" {
		if _, _, err := parseSigner(c.PrivateKeyPEM, c.SigningAlgorithm); err != nil {
			return err
		}
	}
	if c.ClientMetadataURL != "" && !strings.HasPrefix(c.ClientMetadataURL, "https://") {
		return fmt.Errorf("client_metadata_url must be an https URL")
	}
	if c.Enterprise() && c.IdPClientID == "" {
		return fmt.Errorf("cross-app access needs idp_client_id")
	}
	return nil
}

// Options are what a handler needs besides its Config.
type Options struct {
	// Server is the server's name (for messages and the store) and URL
	// its MCP endpoint.
	Server, URL string
	// Store keeps authorization-code tokens; nil keeps them in memory.
	Store *Store
	// Notify tells the person something (the URL to open); nil: nothing.
	Notify func(msg string)
	// Browser opens a URL; nil: OpenBrowser with this process's BROWSER
	// and environment.
	Browser func(url string) error
	// HTTPClient makes the discovery, registration and token requests;
	// nil: http.DefaultClient.
	HTTPClient *http.Client
}

func (o *Options) client() *http.Client {
	if o.HTTPClient != nil {
		return o.HTTPClient
	}
	return http.DefaultClient
}

func (o *Options) notify(format string, args ...any) {
	if o.Notify != nil {
		o.Notify(fmt.Sprintf(format, args...))
	}
}

// New returns the handler of a server's authorization: client credentials,
// cross-app access or the authorization code flow, as cfg says. The MCP
// SDK's streamable transport asks it for a token on every request and
// calls Authorize on a 401 (or a 403 insufficient_scope).
func New(cfg Config, o Options) (auth.OAuthHandler, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	switch {
	case cfg.GrantType == GrantClientCredentials:
		return newMachine(cfg, o, clientCredentialsGrant), nil
	case cfg.Enterprise():
		return newMachine(cfg, o, enterpriseGrant), nil
	}
	return newCodeFlow(cfg, o), nil
}

// OpenBrowser opens url the way a person's desktop would: with $BROWSER
// (getenv's; a command, "%s" in it replaced by the URL, else the URL
// appended) when set, else the platform's opener (open, xdg-open,
// rundll32). The opener gets env as its environment (nil: this process's),
// so a caller can keep secrets out of it. It returns once the opener
// started; the opener runs on and is reaped in the background. The URL is
// passed as one argument, never through a shell.
func OpenBrowser(url string, getenv func(string) string, env []string) error {
	var name string
	var args []string
	// BROWSER may list alternatives separated by ':'; the first one.
	first, _, _ := strings.Cut(getenv("BROWSER"), ":")
	if fields := strings.Fields(first); len(fields) > 0 {
		name, args = fields[0], fields[1:]
		replaced := false
		for i, a := range args {
			if strings.Contains(a, "%s") {
				args[i], replaced = strings.ReplaceAll(a, "%s", url), true
			}
		}
		if !replaced {
			args = append(args, url)
		}
	} else {
		switch runtime.GOOS {
		case "darwin":
			name, args = "open", []string{url}
		case "windows":
			name, args = "rundll32", []string{"url.dll,FileProtocolHandler", url}
		default:
			name, args = "xdg-open", []string{url}
		}
	}
	cmd := exec.Command(name, args...)
	cmd.Env = env
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("opening the browser with %s: %w", name, err)
	}
	go func() { _ = cmd.Wait() }()
	return nil
}
