package scripted

import (
	"encoding/json"
	"net/http"
)

// DefaultModels are the models GET /models lists when Options.Models is
// nil.
var DefaultModels = []string{"scripted-model"}

// serveModels answers GET /models and GET /v1/models with ids in the shape
// of the OpenAI API's "List models" (an object "list" of "model" objects).
// These requests are not recorded in the Log, so that a listing never
// shifts the indices of the chat requests a test inspects.
func serveModels(w http.ResponseWriter, ids []string) {
	if ids == nil {
		ids = DefaultModels
	}
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		OwnedBy string `json:"owned_by"`
	}
	data := make([]model, len(ids))
	for i, id := range ids {
		data[i] = model{ID: id, Object: "model", OwnedBy: "scripted"}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
}

// IsModelsRequest reports whether r asks for the list of models.
func IsModelsRequest(r *http.Request) bool {
	return r.Method == http.MethodGet && (r.URL.Path == "/v1/models" || r.URL.Path == "/models")
}
