package oauth

import (
	"fmt"
	"html"
	"net/http"
	"net/url"
	"os"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// callback answers the authorization server's redirect on the loopback
// listener. Only GET /callback with the flow's state counts; anything else
// is refused and the flow goes on waiting, so a stray or forged request
// cannot end it.
type callback struct {
	state  string
	server string
	once   sync.Once
	result chan callbackResult
}

type callbackResult struct {
	res *auth.AuthorizationResult
	err error
}

func newCallback(authURL, server string) (*callback, error) {
	u, err := url.Parse(authURL)
	if err != nil {
		return nil, fmt.Errorf("the authorization URL: %w", err)
	}
	state := u.Query().Get("state")
	if state == "" {
		return nil, fmt.Errorf("the authorization URL has no state")
	}
	return &callback{state: state, server: server, result: make(chan callbackResult, 1)}, nil
}

func (c *callback) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if r.Method != http.MethodGet || r.URL.Path != "/callback" {
		http.NotFound(w, r)
		return
	}
	if q.Get("state") != c.state {
		http.Error(w, "This is not the authorization agent is waiting for (state mismatch).", http.StatusBadRequest)
		return
	}
	var res callbackResult
	if e := q.Get("error"); e != "" {
		res.err = fmt.Errorf("the authorization server refused: %s %s", e, q.Get("error_description"))
	} else if q.Get("code") == "" {
		http.Error(w, "The redirect carries no authorization code.", http.StatusBadRequest)
		return
	} else {
		res.res = &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}
	}
	c.once.Do(func() { c.result <- res })
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	msg := "agent is authorized to use the MCP server " + c.server + ". You can close this tab."
	if res.err != nil {
		msg = "The authorization of the MCP server " + c.server + " failed: " + res.err.Error()
	}
	fmt.Fprintf(w, "<!doctype html><title>agent</title><p>%s</p>\n", html.EscapeString(msg))
}

func getenvOS(k string) string { return os.Getenv(k) }
