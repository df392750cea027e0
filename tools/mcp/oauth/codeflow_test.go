package oauth

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-dev/agent/internal/oauthtest"
)

// follow is a browser that approves at once: it gets the authorization
// URL and follows the redirects to the loopback callback.
func follow(t *testing.T) func(string) error {
	return func(u string) error {
		resp, err := http.Get(u)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("the callback answered %s", resp.Status)
		}
		return nil
	}
}

// noBrowser fails the test when a browser is opened.
func noBrowser(t *testing.T) func(string) error {
	return func(u string) error {
		t.Errorf("a browser was opened for %s", u)
		return ErrLoginNeeded
	}
}

// callWhoami connects through h and calls the server's tool; it returns
// the session (closed with the test).
func callWhoami(t *testing.T, h auth.OAuthHandler, url string) *sdk.ClientSession {
	t.Helper()
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: url, OAuthHandler: h, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("connecting: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	whoami(t, cs)
	return cs
}

func whoami(t *testing.T, cs *sdk.ClientSession) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "whoami", Arguments: map[string]any{}})
	if err != nil {
		t.Fatalf("calling whoami: %v", err)
	}
	if text := res.Content[0].(*sdk.TextContent).Text; text != "an authorized client" {
		t.Fatalf("whoami answered %q", text)
	}
}

// TestCodeFlowAuthorizesStoresAndReuses: the first connection runs the
// authorization code flow (dynamic registration, PKCE S256, the resource
// parameter, a redirect to 127.0.0.1) and stores the tokens in a 0600
// file; a later handler (the next session) uses them without a browser.
func TestCodeFlowAuthorizesStoresAndReuses(t *testing.T) {
	srv := oauthtest.Start(oauthtest.Options{})
	t.Cleanup(srv.Close)
	store := &Store{Dir: filepath.Join(t.TempDir(), "mcp-oauth")}
	h, err := New(Config{}, Options{Server: "remote", URL: srv.URL(), Store: store, Browser: follow(t)})
	if err != nil {
		t.Fatal(err)
	}
	callWhoami(t, h, srv.URL())

	reqs := srv.AuthorizationRequests()
	if len(reqs) != 1 {
		t.Fatalf("%d authorization requests, want 1", len(reqs))
	}
	q := reqs[0]
	redirect, _ := url.Parse(q.Get("redirect_uri"))
	if q.Get("code_challenge_method") != "S256" || q.Get("resource") != srv.URL() || redirect.Hostname() != "127.0.0.1" ||
		q.Get("client_id") != "registered-client" || q.Get("scope") != "read" {
		t.Errorf("authorization request %v", q)
	}
	if !store.Stored("remote", srv.URL()) {
		t.Fatal("no stored authorization")
	}
	if runtime.GOOS != "windows" {
		st, err := os.Stat(store.path("remote"))
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("token file: %v, mode %v, want 0600", err, st.Mode().Perm())
		}
		if d, _ := os.Stat(store.Dir); d.Mode().Perm() != 0o700 {
			t.Errorf("token directory mode %v, want 0700", d.Mode().Perm())
		}
	}

	again, _ := New(Config{}, Options{Server: "remote", URL: srv.URL(), Store: store, Browser: noBrowser(t)})
	callWhoami(t, again, srv.URL())
	if g := srv.Grants(); strings.Join(g, ",") != "authorization_code" {
		t.Errorf("token requests %v, want one authorization_code", g)
	}
	// Another server under the same name (a new URL) does not get them.
	if store.Stored("remote", srv.URL()+"/other") {
		t.Error("the authorization of one URL counts for another")
	}
}

// TestRefreshBeforeExpiry: a token that expires within RefreshMargin is
// refreshed before it is sent, and the new one is stored.
func TestRefreshBeforeExpiry(t *testing.T) {
	srv := oauthtest.Start(oauthtest.Options{ExpiresIn: 30})
	t.Cleanup(srv.Close)
	store := &Store{Dir: t.TempDir()}
	h, _ := New(Config{}, Options{Server: "remote", URL: srv.URL(), Store: store, Browser: follow(t)})
	callWhoami(t, h, srv.URL())
	first, _, _ := store.load("remote", srv.URL())

	later, _ := New(Config{}, Options{Server: "remote", URL: srv.URL(), Store: store, Browser: noBrowser(t)})
	ts, _ := later.TokenSource(context.Background())
	tok, err := ts.Token()
	if err != nil || tok == nil {
		t.Fatalf("token %v, %v", tok, err)
	}
	stored, _, _ := store.load("remote", srv.URL())
	if tok.AccessToken == first.Token.AccessToken || stored.Token.AccessToken != tok.AccessToken {
		t.Errorf("token %s, first %s, stored %s: want a refreshed token, stored", tok.AccessToken, first.Token.AccessToken, stored.Token.AccessToken)
	}
	if g := srv.Grants(); g[len(g)-1] != "refresh_token" {
		t.Errorf("token requests %v, want a refresh last", g)
	}
}

// TestRunningSessionUsesNewLogin: when the server revokes a running
// session's token and the person logs in again elsewhere (agent mcp
// login), the running session sends the new token without a browser of
// its own and without a restart.
func TestRunningSessionUsesNewLogin(t *testing.T) {
	srv := oauthtest.Start(oauthtest.Options{})
	t.Cleanup(srv.Close)
	store := &Store{Dir: t.TempDir()}
	var opened atomic.Int32
	browse := follow(t)
	running, _ := New(Config{}, Options{Server: "remote", URL: srv.URL(), Store: store, Browser: func(u string) error {
		opened.Add(1)
		return browse(u)
	}})
	cs := callWhoami(t, running, srv.URL())

	srv.RevokeAll()
	login, _ := New(Config{}, Options{Server: "remote", URL: srv.URL(), Store: store, Browser: follow(t)})
	callWhoami(t, login, srv.URL())

	whoami(t, cs)
	if n := opened.Load(); n != 1 {
		t.Errorf("the running session opened the browser %d times, want once (its first login)", n)
	}
}

// TestClientCredentials: a machine client gets its token with
// client_secret_basic, no browser, nothing stored.
func TestClientCredentials(t *testing.T) {
	srv := oauthtest.Start(oauthtest.Options{ClientSecret: "s3cret"})
	t.Cleanup(srv.Close)
	store := &Store{Dir: t.TempDir()}
	h, err := New(Config{GrantType: GrantClientCredentials, ClientID: "machine", ClientSecret: "s3cret"},
		Options{Server: "batch", URL: srv.URL(), Store: store, Browser: noBrowser(t)})
	if err != nil {
		t.Fatal(err)
	}
	callWhoami(t, h, srv.URL())
	if g := srv.Grants(); strings.Join(g, ",") != "client_credentials" {
		t.Errorf("token requests %v", g)
	}
	if store.Stored("batch", srv.URL()) {
		t.Error("a client-credentials token was stored")
	}
}

// TestWrongSecretFailsWithoutQuotingIt: a refused client secret fails the
// connection with the authorization server's error code, and the secret
// appears in no error.
func TestWrongSecretFailsWithoutQuotingIt(t *testing.T) {
	srv := oauthtest.Start(oauthtest.Options{ClientSecret: "right"})
	t.Cleanup(srv.Close)
	h, _ := New(Config{GrantType: GrantClientCredentials, ClientID: "machine", ClientSecret: "wrong-secret-value"},
		Options{Server: "batch", URL: srv.URL(), Browser: noBrowser(t)})
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	_, err := client.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: srv.URL(), OAuthHandler: h, MaxRetries: -1}, nil)
	if err == nil {
		t.Fatal("connected with a wrong secret")
	}
	if !strings.Contains(err.Error(), "invalid_client") || strings.Contains(err.Error(), "wrong-secret-value") {
		t.Errorf("error %q: want invalid_client, without the secret", err)
	}
}

// TestLogin: Login authorizes outside a session and stores the tokens; a
// second Login finds the server accepting the stored token and does
// nothing.
func TestLogin(t *testing.T) {
	srv := oauthtest.Start(oauthtest.Options{})
	t.Cleanup(srv.Close)
	store := &Store{Dir: t.TempDir()}
	h, _ := New(Config{}, Options{Server: "remote", URL: srv.URL(), Store: store, Browser: follow(t)})
	asked, err := Login(context.Background(), h, srv.URL(), nil)
	if err != nil || !asked || !store.Stored("remote", srv.URL()) {
		t.Fatalf("login: asked %v, %v, stored %v", asked, err, store.Stored("remote", srv.URL()))
	}
	again, _ := New(Config{}, Options{Server: "remote", URL: srv.URL(), Store: store, Browser: noBrowser(t)})
	if asked, err := Login(context.Background(), again, srv.URL(), nil); err != nil || asked {
		t.Errorf("second login: asked %v, %v; want nothing to do", asked, err)
	}
}
