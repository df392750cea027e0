// Package oauthtest is an OAuth-protected MCP server for tests, on
// 127.0.0.1: a streamable HTTP MCP endpoint (/mcp, one tool "whoami")
// that answers 401 with a Bearer challenge until it gets a token it
// issued, its protected resource metadata (RFC 9728), and an
// authorization server (RFC 8414 metadata, dynamic registration, an
// authorize endpoint that approves at once with a redirect, a token
// endpoint for authorization_code with PKCE S256, refresh_token and
// client_credentials). It records what clients sent, so a test can check
// the wire: the PKCE method, the resource parameter, the grants used.
package oauthtest

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options shape the server.
type Options struct {
	// ExpiresIn is the lifetime in seconds the token endpoint gives its
	// access tokens (0: 3600).
	ExpiresIn int
	// ClientSecret, when set, is the secret a client_credentials request
	// must carry (client_secret_basic) for client id "machine".
	ClientSecret string
}

// Server is the test server. Its methods are safe for concurrent use.
type Server struct {
	ts   *httptest.Server
	opts Options

	mu       sync.Mutex
	n        int
	codes    map[string]codeGrant // code -> what was authorized
	tokens   map[string]bool      // access tokens that are valid
	grants   []string             // grant_type of each token request
	authzReq []url.Values         // the query of each authorization request
}

type codeGrant struct{ challenge, redirect string }

// Start starts a server; Close stops it.
func Start(opts Options) *Server {
	s := &Server{opts: opts, codes: map[string]codeGrant{}, tokens: map[string]bool{}}
	mux := http.NewServeMux()
	mcpServer := sdk.NewServer(&sdk.Implementation{Name: "oauthtest", Version: "1"}, nil)
	sdk.AddTool(mcpServer, &sdk.Tool{Name: "whoami", Description: "Says who the caller is."},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "an authorized client"}}}, nil, nil
		})
	mcpHandler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return mcpServer }, nil)
	mux.Handle("/mcp", s.requireToken(mcpHandler))
	mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", s.resourceMetadata)
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", s.serverMetadata)
	mux.HandleFunc("POST /register", s.register)
	mux.HandleFunc("GET /authorize", s.authorize)
	mux.HandleFunc("POST /token", s.token)
	s.ts = httptest.NewServer(mux)
	return s
}

// URL is the MCP endpoint's URL.
func (s *Server) URL() string { return s.ts.URL + "/mcp" }

// Close stops the server.
func (s *Server) Close() { s.ts.Close() }

// Grants returns the grant_type of every token request so far, in order.
func (s *Server) Grants() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.grants...)
}

// AuthorizationRequests returns the query of every authorization request.
func (s *Server) AuthorizationRequests() []url.Values {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]url.Values(nil), s.authzReq...)
}

// RevokeAll makes every token issued so far invalid.
func (s *Server) RevokeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokens = map[string]bool{}
}

func (s *Server) requireToken(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		s.mu.Lock()
		valid := ok && s.tokens[tok]
		s.mu.Unlock()
		if !valid {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata="%s/.well-known/oauth-protected-resource/mcp", scope="read"`, s.ts.URL))
			http.Error(w, `{"error":"invalid_token"}`, http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func (s *Server) resourceMetadata(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"resource": s.URL(), "authorization_servers": []string{s.ts.URL}, "scopes_supported": []string{"read"}})
}

func (s *Server) serverMetadata(w http.ResponseWriter, r *http.Request) {
	u := s.ts.URL
	writeJSON(w, http.StatusOK, map[string]any{"issuer": u, "authorization_endpoint": u + "/authorize", "token_endpoint": u + "/token",
		"registration_endpoint": u + "/register", "response_types_supported": []string{"code"},
		"grant_types_supported":            []string{"authorization_code", "refresh_token", "client_credentials"},
		"code_challenge_methods_supported": []string{"S256"}, "token_endpoint_auth_methods_supported": []string{"none", "client_secret_basic"}})
}

func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	var meta map[string]any
	if err := json.NewDecoder(r.Body).Decode(&meta); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_client_metadata"})
		return
	}
	meta["client_id"] = "registered-client"
	meta["token_endpoint_auth_method"] = "none"
	writeJSON(w, http.StatusCreated, meta)
}

func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	s.authzReq = append(s.authzReq, q)
	s.n++
	code := fmt.Sprintf("code-%d", s.n)
	s.codes[code] = codeGrant{challenge: q.Get("code_challenge"), redirect: q.Get("redirect_uri")}
	s.mu.Unlock()
	if q.Get("code_challenge_method") != "S256" || q.Get("resource") != s.URL() {
		http.Error(w, "PKCE S256 and the resource parameter are required", http.StatusBadRequest)
		return
	}
	to, err := url.Parse(q.Get("redirect_uri"))
	if err != nil {
		http.Error(w, "bad redirect_uri", http.StatusBadRequest)
		return
	}
	v := to.Query()
	v.Set("code", code)
	v.Set("state", q.Get("state"))
	to.RawQuery = v.Encode()
	http.Redirect(w, r, to.String(), http.StatusFound)
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	grant := r.PostForm.Get("grant_type")
	s.grants = append(s.grants, grant)
	switch grant {
	case "authorization_code":
		g, ok := s.codes[r.PostForm.Get("code")]
		delete(s.codes, r.PostForm.Get("code"))
		sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
		if !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge || r.PostForm.Get("redirect_uri") != g.redirect {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
	case "refresh_token":
		if !strings.HasPrefix(r.PostForm.Get("refresh_token"), "rt-") {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
		// The MCP authorization spec: the resource parameter (RFC 8707) in
		// every token request, refreshes included.
		if r.PostForm.Get("resource") != s.URL() {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_target"})
			return
		}
	case "client_credentials":
		id, secret, ok := r.BasicAuth()
		if !ok || id != "machine" || secret != s.opts.ClientSecret || s.opts.ClientSecret == "" {
			writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
			return
		}
	default:
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	s.n++
	at := fmt.Sprintf("at-%d", s.n)
	s.tokens[at] = true
	expires := s.opts.ExpiresIn
	if expires == 0 {
		expires = 3600
	}
	resp := map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": expires, "scope": "read"}
	if grant != "client_credentials" {
		resp["refresh_token"] = fmt.Sprintf("rt-%d", s.n)
	}
	writeJSON(w, http.StatusOK, resp)
}
