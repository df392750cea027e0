package openai

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/agent-dev/agent/providers"
	goopenai "github.com/sashabaranov/go-openai"
)

// serverMessage is the message of a JSON error body, or the body itself
// (shortened, an HTML page reduced to its title), or the status text.
func serverMessage(err error, status int) string {
	var ae *goopenai.APIError
	if errors.As(err, &ae) && ae.Message != "" {
		return ae.Message
	}
	var re *goopenai.RequestError
	if errors.As(err, &re) {
		if body := strings.TrimSpace(string(re.Body)); body != "" {
			return providers.BodyMessage(body, status)
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

// transientEvent reports whether an error event in a stream says the server
// is overloaded or rate-limited: worth a retry, unlike other error events.
func transientEvent(e *goopenai.APIError) bool {
	if eventStatus(e) != 0 {
		return true
	}
	text := strings.ToLower(e.Type + " " + fmt.Sprint(e.Code) + " " + e.Message)
	for _, w := range []string{"overloaded", "rate_limit", "rate limit", "too many requests", "capacity"} {
		if strings.Contains(text, w) {
			return true
		}
	}
	return false
}

// eventStatus is the status an error event's code stands for when it is one
// of 429, 503 and 529, else 0.
func eventStatus(e *goopenai.APIError) int {
	status := e.HTTPStatusCode
	if status == 0 {
		switch c := e.Code.(type) {
		case int:
			status = c
		case float64:
			status = int(c)
		case string:
			status, _ = strconv.Atoi(c)
		}
	}
	switch status {
	case http.StatusTooManyRequests, http.StatusServiceUnavailable, 529:
		return status
	}
	return 0
}
