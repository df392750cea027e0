package openai

import (
	"context"
	"errors"
	"fmt"

	"github.com/agent-dev/agent/providers"
	goopenai "github.com/sashabaranov/go-openai"
)

// Models lists the model ids the server offers (GET BASE_URL/models, as in
// the OpenAI API reference "List models"). It makes one request, without
// retries, and is how `agent doctor` checks that the server can be reached
// with the configured key. An answer with an HTTP error status is a
// *providers.APIError with its StatusCode (0: no answer at all); no error
// text holds the key.
func (c *Client) Models(ctx context.Context) ([]string, error) {
	list, err := c.api.ListModels(ctx)
	if err != nil {
		status := 0
		var ae *goopenai.APIError
		var re *goopenai.RequestError
		switch {
		case errors.As(err, &ae):
			status = ae.HTTPStatusCode
		case errors.As(err, &re):
			status = re.HTTPStatusCode
		}
		msg := c.redact(err.Error())
		if status != 0 {
			msg = c.redact(serverMessage(err, status))
		}
		return nil, fmt.Errorf("listing models at %s: %w", c.cfg.BaseURL, &providers.APIError{StatusCode: status, Message: msg})
	}
	ids := make([]string, len(list.Models))
	for i, m := range list.Models {
		ids[i] = m.ID
	}
	return ids, nil
}
