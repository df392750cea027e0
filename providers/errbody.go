package providers

import (
	"fmt"
	"html"
	"net/http"
	"regexp"
	"strings"
)

// maxBodyMessage bounds the part of an error body that is not JSON kept in
// an error message.
const maxBodyMessage = 500

var (
	htmlTitle  = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)
	htmlMarker = regexp.MustCompile(`(?i)^\s*(<!doctype\s+html|<html|<head|<body|<title|<\?xml)`)
	spaces     = regexp.MustCompile(`\s+`)
)

// BodyMessage turns an error body that is not the API's JSON into a short
// message: an HTML page becomes its title and the status ("Error response
// (HTTP 501 Not Implemented)": such a server is usually not an API server
// at all), other text is trimmed to 500 bytes, and an empty body becomes
// the status text.
func BodyMessage(body string, status int) string {
	body = strings.TrimSpace(body)
	if body == "" {
		return http.StatusText(status)
	}
	if htmlMarker.MatchString(body) {
		title := ""
		if m := htmlTitle.FindStringSubmatch(body); m != nil {
			title = strings.TrimSpace(spaces.ReplaceAllString(html.UnescapeString(m[1]), " "))
		}
		st := fmt.Sprintf("HTTP %d %s", status, http.StatusText(status))
		if title == "" {
			return "an HTML page (" + st + "): is this an API server?"
		}
		return fmt.Sprintf("an HTML page %q (%s): is this an API server?", title, st)
	}
	if len(body) > maxBodyMessage {
		body = body[:maxBodyMessage] + "…"
	}
	return body
}
