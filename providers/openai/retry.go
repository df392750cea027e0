package openai

import (
	"errors"
	"net/http"
	"strings"

	"github.com/agent-dev/agent/providers"
	goopenai "github.com/sashabaranov/go-openai"
)

// serverMessage is the message of a JSON error body, or the body itself
// (shortened), or the status text.
func serverMessage(err error, status int) string {
	var ae *goopenai.APIError
	if errors.As(err, &ae) && ae.Message != "" {
		return ae.Message
	}
	var re *goopenai.RequestError
	if errors.As(err, &re) {
		if body := strings.TrimSpace(string(re.Body)); body != "" {
			if len(body) > 500 {
				body = body[:500] + "…"
			}
			return body
		}
	}
	return http.StatusText(status)
}

// rejectsStreamOptions reports whether e is a server's refusal of the
// stream_options field.
func rejectsStreamOptions(e *providers.APIError) bool {
	return e.StatusCode >= 400 && e.StatusCode < 500 && !e.IsAuth() && e.StatusCode != http.StatusTooManyRequests &&
		strings.Contains(strings.ToLower(e.Message), "stream_options")
}
