package scriptedanthropic

import (
	"encoding/json"
	"net/http"
)

// serveModels answers GET /v1/models with ids in the shape of the Anthropic
// API's "List Models" (one page, has_more false). These requests are not
// recorded in the Log, so that a listing never shifts the indices of the
// message requests a test inspects.
func serveModels(w http.ResponseWriter, ids []string) {
	if ids == nil {
		ids = []string{"claude-scripted"}
	}
	type model struct {
		Type        string `json:"type"`
		ID          string `json:"id"`
		DisplayName string `json:"display_name"`
		CreatedAt   string `json:"created_at"`
	}
	data := make([]model, len(ids))
	for i, id := range ids {
		data[i] = model{Type: "model", ID: id, DisplayName: id, CreatedAt: "2025-01-01T00:00:00Z"}
	}
	page := map[string]any{"data": data, "has_more": false, "first_id": nil, "last_id": nil}
	if len(ids) > 0 {
		page["first_id"], page["last_id"] = ids[0], ids[len(ids)-1]
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(page)
}
