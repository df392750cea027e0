package oauth

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
)

// legacyMetadata is the transport of the discovery requests of a server
// that may follow MCP 2025-03-26, whose authorization base URL is the MCP
// server's origin: its metadata is at the origin's
// /.well-known/oauth-authorization-server, where some such servers name an
// issuer with a path (https://host/oauth). The SDK checks RFC 8414's
// issuer rule and refuses that document; this transport presents it as the
// origin's, and only when its issuer is on the MCP server's own origin
// (the same party), so no document of another host is ever accepted.
type legacyMetadata struct {
	origin string // scheme://host of the MCP server
	base   http.RoundTripper
}

func (l legacyMetadata) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := l.base.RoundTrip(r)
	if err != nil || r.Method != http.MethodGet || resp.StatusCode != http.StatusOK ||
		r.URL.Scheme+"://"+r.URL.Host != l.origin || r.URL.Path != "/.well-known/oauth-authorization-server" {
		return resp, err
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	if json.Unmarshal(body, &doc) == nil {
		if iss, _ := doc["issuer"].(string); iss != "" && iss != l.origin {
			if u, err := url.Parse(iss); err == nil && u.Scheme+"://"+u.Host == l.origin {
				doc["issuer"] = l.origin
				if b, err := json.Marshal(doc); err == nil {
					body = b
				}
			}
		}
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
	return resp, nil
}

// legacyClient is client with legacyMetadata for the MCP server at
// serverURL.
func legacyClient(client *http.Client, serverURL string) *http.Client {
	u, err := url.Parse(serverURL)
	if err != nil {
		return client
	}
	base := client.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c := *client
	c.Transport = legacyMetadata{origin: u.Scheme + "://" + u.Host, base: base}
	return &c
}
