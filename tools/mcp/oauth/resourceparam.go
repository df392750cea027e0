package oauth

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"strconv"
)

// resourceParam is a transport that adds the resource parameter (RFC 8707)
// to refresh requests sent to tokenURL, as the MCP authorization spec asks
// of every token request: x/oauth2's refresh has no way to add one.
type resourceParam struct {
	base               http.RoundTripper
	tokenURL, resource string
}

// withResource returns client with its transport wrapped in resourceParam.
func withResource(client *http.Client, tokenURL, resource string) *http.Client {
	if client == nil {
		client = http.DefaultClient
	}
	base := client.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c := *client
	c.Transport = resourceParam{base: base, tokenURL: tokenURL, resource: resource}
	return &c
}

// RoundTrip sends req, with resource added to the form of a refresh
// request to the token endpoint that has none.
func (t resourceParam) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodPost || req.Body == nil || req.URL.String() != t.tokenURL || t.resource == "" {
		return t.base.RoundTrip(req)
	}
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	form, err := url.ParseQuery(string(body))
	if err == nil && form.Get("grant_type") == "refresh_token" && form.Get("resource") == "" {
		form.Set("resource", t.resource)
		body = []byte(form.Encode())
	}
	r := req.Clone(req.Context())
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	r.Header.Set("Content-Length", strconv.Itoa(len(body)))
	return t.base.RoundTrip(r)
}
