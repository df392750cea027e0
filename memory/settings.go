package memory

import (
	"cmp"
	"fmt"
)

// File is the config file's [memory] table: whether memory_search also
// ranks past sessions by meaning, with the provider's embeddings endpoint.
//
//	[memory]
//	embeddings = "auto"         # or "off"
//	embedding_model = "nomic-embed-text"  # default text-embedding-3-small
type File struct {
	// Embeddings is "auto" (the default: on while the endpoint answers)
	// or "off".
	Embeddings string `toml:"embeddings"`
	// EmbeddingModel is the embedding model; "" for DefaultEmbeddingModel.
	EmbeddingModel string `toml:"embedding_model"`
}

// Settings are the memory's resolved settings.
type Settings struct {
	// Embeddings is "auto" or "off".
	Embeddings string
	// EmbeddingModel is the embedding model; "" for DefaultEmbeddingModel.
	EmbeddingModel string
}

// ResolveSettings resolves f for a provider that serves an embeddings
// endpoint or not (Anthropic serves none: embeddings are off); where names
// the config file in messages ("config PATH").
func ResolveSettings(f File, servesEmbeddings bool, where string) (Settings, error) {
	s := Settings{Embeddings: cmp.Or(f.Embeddings, "auto"), EmbeddingModel: f.EmbeddingModel}
	if s.Embeddings != "auto" && s.Embeddings != "off" {
		return s, fmt.Errorf("%s: memory: embeddings %q: want auto or off", where, s.Embeddings)
	}
	if !servesEmbeddings {
		s.Embeddings = "off"
	}
	return s, nil
}

// Embedder is the embeddings client of the endpoint at baseURL with
// apiKey, nil when embeddings are off.
func (s Settings) Embedder(baseURL, apiKey string) *Embedder {
	if s.Embeddings != "auto" {
		return nil
	}
	return NewEmbedder(baseURL, apiKey, s.EmbeddingModel, nil)
}
