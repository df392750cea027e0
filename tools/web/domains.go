package web

import (
	"fmt"
	"net/url"
	"strings"
)

// ToolName is the web_fetch tool's name, which permission rules name.
const ToolName = "web_fetch"

// ParseRule reads a permission rule that names web_fetch: "web_fetch"
// (every domain, pattern "*") or "web_fetch(domain:docs.rs)" (one domain;
// "*.python.org" is python.org and every name under it), Claude Code's
// WebFetch(domain:...) with our tool's name. ok is false for a rule about
// something else; err is set for a web_fetch rule that is malformed.
func ParseRule(rule string) (pattern string, ok bool, err error) {
	rule = strings.TrimSpace(rule)
	if rule == ToolName {
		return "*", true, nil
	}
	rest, found := strings.CutPrefix(rule, ToolName+"(")
	if !found {
		return "", false, nil
	}
	inner, closed := strings.CutSuffix(rest, ")")
	d, isDomain := strings.CutPrefix(strings.TrimSpace(inner), "domain:")
	d = strings.ToLower(strings.TrimSpace(d))
	if !closed || !isDomain || d == "" || strings.ContainsAny(d, "/:@ ") {
		return "", true, fmt.Errorf("rule %q: write web_fetch(domain:example.com) or web_fetch(domain:*.example.com)", rule)
	}
	return d, true, nil
}

// MatchDomain reports whether host (lowercase, no port) matches pattern:
// "*" matches every host, "*.example.com" example.com and the names under
// it, any other pattern that host alone.
func MatchDomain(pattern, host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	switch {
	case pattern == "*":
		return true
	case strings.HasPrefix(pattern, "*."):
		base := pattern[2:]
		return host == base || strings.HasSuffix(host, "."+base)
	}
	return host == pattern
}

// Host is the host name a web_fetch call with these raw arguments
// reaches, lowercase without port; "" when the arguments name no usable
// URL.
func Host(args string) string {
	u, err := parseURL(urlArg(args))
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
}

// parseURL reads the model's URL: http or https with a host; a URL with no
// scheme is taken as https.
func parseURL(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, fmt.Errorf("url is empty")
	}
	if !strings.Contains(raw, "://") {
		raw = "https://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("url %q: %w", raw, err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("url %q: only http and https are fetched", raw)
	case u.Hostname() == "":
		return nil, fmt.Errorf("url %q has no host", raw)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	u.Fragment = ""
	return u, nil
}
