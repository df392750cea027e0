package memory

import (
	"strings"
	"testing"
)

// [memory] embeddings is auto unless off; a provider that serves no
// embeddings endpoint (Anthropic) turns them off; anything else names the
// config file.
func TestResolveSettings(t *testing.T) {
	for _, tc := range []struct {
		f     File
		serve bool
		want  string
	}{
		{File{}, true, "auto"},
		{File{Embeddings: "off"}, true, "off"},
		{File{}, false, "off"},
	} {
		s, err := ResolveSettings(tc.f, tc.serve, "config c.toml")
		if err != nil || s.Embeddings != tc.want {
			t.Errorf("%+v serving %v: %q, %v; want %q", tc.f, tc.serve, s.Embeddings, err, tc.want)
		}
		if (s.Embedder("http://localhost:1/v1", "") != nil) != (tc.want == "auto") {
			t.Errorf("%+v: an embedder with embeddings %s", tc.f, s.Embeddings)
		}
	}
	if _, err := ResolveSettings(File{Embeddings: "sometimes"}, true, "config c.toml"); err == nil || !strings.Contains(err.Error(), "config c.toml: memory: embeddings \"sometimes\"") {
		t.Errorf("embeddings = sometimes: %v", err)
	}
}
