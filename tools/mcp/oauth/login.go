package oauth

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// probe is the initialize request Login sends: what the server's 401
// answers.
const probe = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"agent","version":"login"}}}`

// Login runs h's authorization now, outside any MCP session (the
// interface's /mcp login): it sends the server at serverURL an initialize
// request with h's current token, if any, and when the server answers 401
// (or 403) hands the answer to h.Authorize, which stores the new tokens
// where the running session's handler reads them. asked is false when the
// server accepted the request as it was (nothing to do).
func Login(ctx context.Context, h auth.OAuthHandler, serverURL string, client *http.Client) (asked bool, err error) {
	if client == nil {
		client = http.DefaultClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, serverURL, strings.NewReader(probe))
	if err != nil {
		return false, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if ts, err := h.TokenSource(ctx); err == nil && ts != nil {
		if tok, err := ts.Token(); err == nil && tok != nil {
			req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
		}
	}
	resp, err := client.Do(req)
	if err != nil {
		return false, fmt.Errorf("reaching %s: %w", serverURL, err)
	}
	if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return false, nil
	}
	return true, h.Authorize(ctx, req, resp)
}
