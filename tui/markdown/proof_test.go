package markdown

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkStreamEveryStep is the exhaustive form of the correctness proof:
// every step of the long fixture, fed in deltas of every shape, checked as in
// TestStreamEqualsFullRender (which runs it on the short fixture). It fails
// on the first step that differs. Run it after changing split.go, stream.go
// or the drawing (about 20 s without -race, minutes with it):
//
//	go test -run '^$' -bench StreamEveryStep -benchtime 1x ./tui/markdown/
func BenchmarkStreamEveryStep(b *testing.B) {
	fixture := readFixture(b)
	for _, c := range chunkers {
		b.Run(c.name, func(b *testing.B) {
			deltas := c.split(fixture)
			for b.Loop() {
				proveStream(b, fixture, deltas, c.memo, nil, 20)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(deltas)), "ns/step")
		})
	}
}

// FuzzStream checks, at every step, that a Stream equals the from-scratch
// rendering for any text cut into deltas of random sizes (seeded by seed).
// Without -fuzz it runs only the small seeds below; explore with
//
//	go test -run '^$' -fuzz FuzzStream -fuzztime 5m ./tui/markdown/
func FuzzStream(f *testing.F) {
	for _, seed := range []string{
		"# H\n\ntext [a]\n\n[a]: http://x\n",
		"- a\n\n- b\n\n  more\n\nafter\n",
		"```go\na\n\nb\n```\n\n> q\n>\n> r\n\nTerm\n: d\n",
		"| a |\n|---|\n| 1 |\n\n<!--\n\n-->\nx\n===\n",
	} {
		f.Add(seed, uint64(1))
	}
	f.Fuzz(func(t *testing.T, text string, seed uint64) {
		if len(text) > 4096 {
			t.Skip("long texts make each step slow; the fixtures cover length")
		}
		rng := rand.New(rand.NewPCG(seed, seed>>1))
		deltas := bySize(text, func() int { return 1 + rng.IntN(12) })
		if text == "" {
			deltas = nil
		}
		proveStream(t, text, deltas, true, nil, 0)
	})
}
