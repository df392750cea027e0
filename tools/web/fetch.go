package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// maxRedirects is how many redirects within one site a fetch follows.
const maxRedirects = 10

// userAgent names the agent to the servers it fetches from.
const userAgent = "agent-web-fetch/1 (+https://github.com/agent-dev/agent)"

// page is what a fetch brought back: the final URL, the response's status
// and type, and its body, read up to the cap.
type page struct {
	url         *url.URL
	status      int
	contentType string
	body        []byte
	// cut is true when the body was longer than the cap and its rest was
	// not read.
	cut bool
	// redirect, when not nil, is a redirect to another site, not followed:
	// it needs its own call (and its own approval).
	redirect *url.URL
}

// fetcher makes the GET requests: no proxy, no cookies, no credentials,
// only public addresses (see dialer), http upgraded to https.
type fetcher struct {
	dial     dialer
	client   *http.Client
	maxBytes int64
}

func newFetcher(cfg Config) *fetcher {
	d := dialer{private: map[string]bool{}, timeout: 10 * time.Second}
	for _, h := range cfg.PrivateHosts {
		d.private[strings.ToLower(h)] = true
	}
	tr := &http.Transport{
		Proxy:                 nil, // a proxy would be where the address checks ran
		DialContext:           d.DialContext,
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: cfg.Timeout,
		MaxIdleConns:          4,
		IdleConnTimeout:       30 * time.Second,
	}
	f := &fetcher{dial: d, maxBytes: cfg.MaxBytes}
	// No Jar: no cookies are kept or sent. Redirects are followed by get,
	// one hop at a time, so that each is checked.
	f.client = &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return f
}

// upgrade returns u with http turned into https, except for a host the
// configuration allows to be private (a local documentation server rarely
// speaks TLS).
func (f *fetcher) upgrade(u *url.URL) *url.URL {
	c := *u
	if c.Scheme == "http" && !f.dial.allowsPrivate(c.Host) {
		c.Scheme = "https"
		if c.Port() == "80" {
			c.Host = c.Hostname()
		}
	}
	return &c
}

// sameSite reports whether a redirect from a to b stays on the site: the
// same host and port, give or take a leading "www.".
func sameSite(a, b *url.URL) bool {
	strip := func(u *url.URL) string {
		return strings.TrimPrefix(strings.ToLower(u.Host), "www.")
	}
	return strip(a) == strip(b)
}

// get fetches u, following redirects within its site (each checked like
// the first request); a redirect to another site is returned, not
// followed, unless its host is an address no fetch may reach, which is an
// error. A response's body is read up to the cap.
func (f *fetcher) get(ctx context.Context, u *url.URL) (*page, error) {
	u = f.upgrade(u)
	for hop := 0; ; hop++ {
		if err := f.dial.checkHost(u.Host); err != nil {
			return nil, err
		}
		resp, err := f.do(ctx, u)
		if err != nil {
			return nil, err
		}
		if !isRedirect(resp.StatusCode) {
			return f.read(resp, u)
		}
		resp.Body.Close()
		loc, err := u.Parse(resp.Header.Get("Location"))
		if err != nil || resp.Header.Get("Location") == "" {
			return nil, fmt.Errorf("%s answered %d without a usable Location", u, resp.StatusCode)
		}
		if loc.Scheme != "http" && loc.Scheme != "https" {
			return nil, fmt.Errorf("%s redirects to %s, which is not http(s)", u, loc.Redacted())
		}
		loc.User = nil
		loc = f.upgrade(loc)
		if err := f.dial.checkHost(loc.Host); err != nil {
			return nil, fmt.Errorf("the redirect to %s was refused: %w", loc.Redacted(), err)
		}
		if !sameSite(u, loc) {
			return &page{url: u, status: resp.StatusCode, redirect: loc}, nil
		}
		if hop >= maxRedirects {
			return nil, fmt.Errorf("more than %d redirects from %s", maxRedirects, u)
		}
		u = loc
	}
}

func isRedirect(code int) bool {
	switch code {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// do sends one GET: no cookies, no Authorization, no credentials from the
// URL.
func (f *fetcher) do(ctx context.Context, u *url.URL) (*http.Response, error) {
	c := *u
	c.User = nil
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("building the request: %w", err)
	}
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set("Accept", "text/markdown, text/html;q=0.9, text/plain;q=0.8, application/json;q=0.8, application/pdf;q=0.7, */*;q=0.5")
	resp, err := f.client.Do(req)
	if err != nil {
		var blocked *BlockedError
		if errors.As(err, &blocked) {
			return nil, blocked
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return nil, fmt.Errorf("fetching %s timed out", c.Redacted())
		}
		return nil, fmt.Errorf("fetching %s: %w", c.Redacted(), err)
	}
	return resp, nil
}

// read takes the response's body, at most maxBytes of it.
func (f *fetcher) read(resp *http.Response, u *url.URL) (*page, error) {
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, f.maxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", u.Redacted(), err)
	}
	p := &page{url: u, status: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), body: body}
	if int64(len(body)) > f.maxBytes {
		p.body, p.cut = body[:f.maxBytes], true
	}
	return p, nil
}
