package anthropic

import (
	"context"
	"errors"
	"fmt"

	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/agent-dev/agent/providers"
)

// Models lists the model ids the server offers (GET {base_url}/v1/models,
// the first page of up to 1000). It makes one request, without retries,
// and is how `agent doctor` checks that the server can be reached with the
// configured key. An HTTP error answer is a *providers.APIError with its
// StatusCode (0: no answer at all); no error text holds the key.
func (c *Client) Models(ctx context.Context) ([]string, error) {
	page, err := c.api.Models.List(ctx, sdk.ModelListParams{Limit: sdk.Int(1000)})
	if err != nil {
		ae := &providers.APIError{Message: c.redact(err.Error())}
		var se *sdk.Error
		if errors.As(err, &se) {
			ae.StatusCode, ae.Message = se.StatusCode, c.redact(errorMessage(se.RawJSON(), se.StatusCode))
		}
		return nil, fmt.Errorf("listing models at %s: %w", c.cfg.BaseURL, ae)
	}
	ids := make([]string, len(page.Data))
	for i, m := range page.Data {
		ids[i] = m.ID
	}
	return ids, nil
}
