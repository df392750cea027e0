package memory

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	goopenai "github.com/sashabaranov/go-openai"
)

// DefaultEmbeddingModel is the embedding model asked for when the
// configuration names none: OpenAI's. Ollama, vLLM and LM Studio serve
// models of their own names ([memory] embedding_model).
const DefaultEmbeddingModel = "text-embedding-3-small"

// QueryTimeout bounds the embedding of a search's query: past it, the
// search returns keyword results only.
const QueryTimeout = 2 * time.Second

// embedBatch is how many passages one embeddings request carries, and
// embedChars how much of a passage is sent (about 2,000 tokens).
const (
	embedBatch = 32
	embedChars = 8000
)

// Embedder turns texts into vectors through an OpenAI-compatible
// embeddings endpoint (POST BASE/embeddings: OpenAI, Ollama, vLLM, LM
// Studio). Once the endpoint answers that it is not there or not allowed
// (HTTP 400, 401, 403, 404, 405) or answers with no vectors, the
// Embedder is off for the rest of the process and every call fails at
// once with ErrEmbeddingsOff. It is safe for concurrent use.
type Embedder struct {
	client *goopenai.Client
	model  string
	off    atomic.Bool
	why    atomic.Value // string: why it went off
}

// ErrEmbeddingsOff is returned by an Embedder that is off.
var ErrEmbeddingsOff = errors.New("embeddings are off")

// NewEmbedder returns an Embedder for the OpenAI-compatible API at baseURL
// (up to and including the version, "https://api.openai.com/v1"; "" for
// OpenAI's) with key ("" sends none) and model ("" for
// DefaultEmbeddingModel). hc sends the requests; nil for
// http.DefaultClient.
func NewEmbedder(baseURL, key, model string, hc *http.Client) *Embedder {
	cfg := goopenai.DefaultConfig(key)
	if baseURL != "" {
		cfg.BaseURL = strings.TrimRight(baseURL, "/")
	}
	if hc != nil {
		cfg.HTTPClient = hc
	}
	if model == "" {
		model = DefaultEmbeddingModel
	}
	return &Embedder{client: goopenai.NewClientWithConfig(cfg), model: model}
}

// Model is the embedding model's name, as vectors are stored under it.
func (e *Embedder) Model() string { return e.model }

// Off reports whether the endpoint was found missing, and why.
func (e *Embedder) Off() (bool, string) {
	why, _ := e.why.Load().(string)
	return e.off.Load(), why
}

// Embed returns one vector per text, in order. A text is cut to about
// 8,000 characters. Errors: ErrEmbeddingsOff (wrapped) once the endpoint
// is known missing; else the request's failure.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if e.off.Load() {
		return nil, ErrEmbeddingsOff
	}
	in := make([]string, len(texts))
	for i, t := range texts {
		in[i] = cut(t, embedChars)
		if strings.TrimSpace(in[i]) == "" {
			in[i] = "."
		}
	}
	res, err := e.client.CreateEmbeddings(ctx, goopenai.EmbeddingRequestStrings{Input: in, Model: goopenai.EmbeddingModel(e.model)})
	if err != nil {
		if status := httpStatus(err); status == 400 || status == 401 || status == 403 || status == 404 || status == 405 {
			e.turnOff(fmt.Sprintf("the embeddings endpoint answered HTTP %d", status))
			return nil, fmt.Errorf("%w: %s", ErrEmbeddingsOff, e.reason())
		}
		return nil, fmt.Errorf("embedding %d texts: %w", len(texts), err)
	}
	out := make([][]float32, len(texts))
	for _, d := range res.Data {
		if d.Index >= 0 && d.Index < len(out) {
			out[d.Index] = d.Embedding
		}
	}
	for _, v := range out {
		if len(v) == 0 {
			e.turnOff("the embeddings endpoint answered without vectors")
			return nil, fmt.Errorf("%w: %s", ErrEmbeddingsOff, e.reason())
		}
	}
	return out, nil
}

func (e *Embedder) turnOff(why string) {
	e.why.CompareAndSwap(nil, why)
	e.off.Store(true)
}

func (e *Embedder) reason() string { _, why := e.Off(); return why }

// httpStatus is the HTTP status of a go-openai error, 0 for none.
func httpStatus(err error) int {
	var ae *goopenai.APIError
	if errors.As(err, &ae) {
		return ae.HTTPStatusCode
	}
	var re *goopenai.RequestError
	if errors.As(err, &re) {
		return re.HTTPStatusCode
	}
	return 0
}

// indexer fills the store's vectors in the background.
type indexer struct {
	kick   chan struct{}
	cancel context.CancelFunc
	done   chan struct{}
	once   sync.Once
}

// UseEmbeddings makes searches merge a ranking by meaning (e's vectors of
// the passages) into the keyword ranking. Call it before the first search.
func (m *Memory) UseEmbeddings(e *Embedder) { m.embed = e }

// EmbedPending embeds the stored messages that have no vector for the
// embedder's model yet, newest first, in batches, until none is left, ctx
// ends or the embedder fails; it returns how many it stored. It first loads
// the vectors already stored into the store's memory (Store.LoadVectors).
// Without an embedder or a store it does nothing.
func (m *Memory) EmbedPending(ctx context.Context) (int, error) {
	if m.embed == nil || m.store == nil {
		return 0, nil
	}
	// The vectors already stored are loaded into memory here, off the
	// turn's path, so that the first search by meaning need not.
	if err := m.store.LoadVectors(ctx, m.embed.Model()); err != nil {
		return 0, err
	}
	n := 0
	for {
		ps, err := m.store.Unembedded(ctx, m.embed.Model(), embedBatch)
		if err != nil || len(ps) == 0 {
			return n, err
		}
		vecs := map[int64][]float32{}
		var texts []string
		var ids []int64
		for _, p := range ps {
			if strings.TrimSpace(p.Text) == "" {
				vecs[p.ID] = nil // nothing to embed: marked done
				continue
			}
			texts = append(texts, p.Text)
			ids = append(ids, p.ID)
		}
		if len(texts) > 0 {
			vs, err := m.embed.Embed(ctx, texts)
			if err != nil {
				return n, err
			}
			for i, id := range ids {
				vecs[id] = vs[i]
			}
		}
		if err := m.store.PutVectors(ctx, m.embed.Model(), vecs); err != nil {
			return n, err
		}
		n += len(ps)
	}
}

// embedInterval is how often the background indexer looks for new
// messages when nothing asks it sooner.
const embedInterval = 30 * time.Second

// StartEmbedding starts embedding the stored messages in the background
// (EmbedPending now, then every 30 seconds and after each search) until
// the returned stop is called; stop waits for the goroutine to end. A
// failure is retried at the next round; once the endpoint is known
// missing the goroutine ends. Nothing a turn does waits for it. Without an
// embedder or a store, stop does nothing.
func (m *Memory) StartEmbedding(ctx context.Context) (stop func()) {
	if m.embed == nil || m.store == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	ix := &indexer{kick: make(chan struct{}, 1), cancel: cancel, done: make(chan struct{})}
	m.indexer.Store(ix)
	go func() {
		defer close(ix.done)
		t := time.NewTicker(embedInterval)
		defer t.Stop()
		for {
			_, err := m.EmbedPending(ctx)
			if errors.Is(err, ErrEmbeddingsOff) {
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			case <-ix.kick:
			}
		}
	}()
	return func() {
		ix.once.Do(func() {
			cancel()
			<-ix.done
		})
	}
}

// kickIndexer asks the background indexer, if any, for a round now.
func (m *Memory) kickIndexer() {
	if ix := m.indexer.Load(); ix != nil {
		select {
		case ix.kick <- struct{}{}:
		default:
		}
	}
}
