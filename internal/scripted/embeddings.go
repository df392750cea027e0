package scripted

import (
	"encoding/json"
	"hash/fnv"
	"math"
	"net/http"
	"strings"
	"unicode"
)

// EmbeddingDims is the length of the vectors POST /v1/embeddings answers.
const EmbeddingDims = 256

// IsEmbeddingsRequest reports whether r asks for embeddings.
func IsEmbeddingsRequest(r *http.Request) bool {
	return r.URL.Path == "/v1/embeddings" || r.URL.Path == "/embeddings"
}

// serveEmbeddings answers POST /v1/embeddings in the shape of the OpenAI
// API's "Create embeddings" with Embed's vector of each input (a string or
// an array of strings). With Options.NoEmbeddings it answers 404, as a
// server without the endpoint does. Options.OnEmbeddings is called first.
// These requests are not recorded in the Log, so that they never shift the
// indices of the chat requests a test inspects.
func (h *Handler) serveEmbeddings(w http.ResponseWriter, r *http.Request) {
	if h.opts.NoEmbeddings {
		writeError(w, http.StatusNotFound, "scripted: no such endpoint "+r.URL.Path, "")
		return
	}
	if r.Method != http.MethodPost {
		writeError(w, http.StatusMethodNotAllowed, "scripted: method "+r.Method+" not allowed", "")
		return
	}
	var req struct {
		Input json.RawMessage `json:"input"`
		Model string          `json:"model"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "scripted: "+err.Error(), "")
		return
	}
	var inputs []string
	if err := json.Unmarshal(req.Input, &inputs); err != nil {
		var one string
		if err := json.Unmarshal(req.Input, &one); err != nil {
			writeError(w, http.StatusBadRequest, "scripted: input must be a string or an array of strings", "")
			return
		}
		inputs = []string{one}
	}
	if h.opts.OnEmbeddings != nil {
		h.opts.OnEmbeddings(r.Context(), inputs)
	}
	type datum struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	data := make([]datum, len(inputs))
	for i, in := range inputs {
		data[i] = datum{Object: "embedding", Index: i, Embedding: Embed(in)}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model,
		"usage": map[string]int{"prompt_tokens": 0, "total_tokens": 0}})
}

// Embed is the scripted server's embedding of text: a hashed bag of the
// character trigrams of its words (lowercased, padded with a space each
// side), of EmbeddingDims dimensions, normalised to length 1. Texts
// sharing word pieces ("postgres", "PostgreSQL") are near, as a real
// model's related words are, though no keyword is shared.
func Embed(text string) []float32 {
	v := make([]float32, EmbeddingDims)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		rs := []rune(" " + w + " ")
		for i := 0; i+3 <= len(rs); i++ {
			f := fnv.New32a()
			f.Write([]byte(string(rs[i : i+3])))
			v[f.Sum32()%EmbeddingDims]++
		}
	}
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n > 0 {
		for i := range v {
			v[i] /= float32(math.Sqrt(n))
		}
	}
	return v
}
