package markdown

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

const benchChunks = 5000

// benchAnswer returns a realistic long answer split into benchChunks deltas
// of 1-8 bytes (token-sized): sections with prose, lists, Go code and an
// occasional table.
func benchAnswer() []string {
	var b strings.Builder
	for i := 0; b.Len() < benchChunks*9/2; i++ {
		fmt.Fprintf(&b, "## Step %d: change the `handler%d` function\n\n", i, i)
		fmt.Fprintf(&b, "The handler reads the **request**, checks the *session* and calls the store. "+
			"See [the docs](https://example.com/%d) for details; it returns an error when the input is invalid.\n\n", i)
		b.WriteString("- validate the input\n- open the transaction\n  - retry on conflict\n- write the response\n\n")
		fmt.Fprintf(&b, "```go\nfunc handler%d(w http.ResponseWriter, r *http.Request) {\n\tctx := r.Context()\n\n"+
			"\tif err := store.Save(ctx, r.Body); err != nil {\n\t\thttp.Error(w, err.Error(), 500)\n\t\treturn\n\t}\n}\n```\n\n", i)
		if i%3 == 0 {
			b.WriteString("| field | type | notes |\n|---|---|---|\n| id | int | key |\n| name | string | unique |\n\n")
		}
		b.WriteString("> Note: run the tests before you commit.\n\n")
	}
	text := b.String()
	rng := rand.New(rand.NewPCG(7, 7))
	deltas := bySize(text, func() int { return 1 + rng.IntN(8) })
	// Merge or split to exactly benchChunks deltas.
	for len(deltas) > benchChunks {
		n := len(deltas)
		deltas[n-2] += deltas[n-1]
		deltas = deltas[:n-1]
	}
	return deltas
}

// BenchmarkStream renders a streamed answer after every delta (Lines, what
// the interface takes; Render also joins the lines into one string). incremental
// and full report ns/chunk (the mean cost of one delta): incremental streams
// all 5,000 chunks through a Stream; full renders the whole text so far from
// scratch, measured on every 100th chunk (re-rendering on all 5,000 would
// take minutes per iteration). first-100-200 and last-4800-4900 time the
// incremental stream's chunks 100-200 and 4,800-4,900, to show the cost per
// chunk does not grow with the message.
func BenchmarkStream(b *testing.B) {
	deltas := benchAnswer()
	const width = 100
	b.Run("incremental", func(b *testing.B) {
		r := NewRenderer(Dark)
		var early, late time.Duration
		for b.Loop() {
			s := NewStream(r)
			for i, d := range deltas {
				start := time.Now()
				s.Append(d)
				s.Lines(width)
				switch el := time.Since(start); {
				case i < 500:
					early += el
				case i >= benchChunks-500:
					late += el
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchChunks), "ns/chunk")
		b.ReportMetric(float64(early.Nanoseconds())/float64(b.N*500), "ns/chunk-first500")
		b.ReportMetric(float64(late.Nanoseconds())/float64(b.N*500), "ns/chunk-last500")
	})
	b.Run("full", func(b *testing.B) {
		r := NewRenderer(Dark)
		var measured time.Duration
		samples := 0
		for b.Loop() {
			var text strings.Builder
			for i, d := range deltas {
				text.WriteString(d)
				if i%100 != 99 {
					continue
				}
				start := time.Now()
				r.Render(text.String(), width)
				measured += time.Since(start)
				samples++
			}
		}
		b.ReportMetric(float64(measured.Nanoseconds())/float64(samples), "ns/chunk")
	})
	for _, span := range [][2]int{{100, 200}, {4800, 4900}} {
		b.Run(fmt.Sprintf("chunks-%d-%d", span[0], span[1]), func(b *testing.B) {
			r := NewRenderer(Dark)
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				s := NewStream(r)
				for _, d := range deltas[:span[0]] {
					s.Append(d)
				}
				s.Lines(width)
				b.StartTimer()
				for _, d := range deltas[span[0]:span[1]] {
					s.Append(d)
					s.Lines(width)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*(span[1]-span[0])), "ns/chunk")
		})
	}
}

// BenchmarkStreamLongCode streams a 1,500-line Go code block (500 three-line steps) a line at a
// time and draws it after each line, as the interface does at most once a
// frame: the cost of a frame while a long block streams.
func BenchmarkStreamLongCode(b *testing.B) {
	var lines []string
	for i := range 500 {
		lines = append(lines, fmt.Sprintf("\tif err := step%d(ctx, \"arg\"); err != nil { // step %d\n\t\treturn err\n\t}\n", i, i))
	}
	r := NewRenderer(Dark)
	for b.Loop() {
		s := NewStream(r)
		s.Append("Here is the file:\n\n```go\nfunc run(ctx context.Context) error {\n")
		for _, l := range lines {
			s.Append(l)
			s.Lines(100)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(lines)), "ns/frame")
}

// BenchmarkLongWord draws 100 KB without a space, as prose and as one code
// line (base64, a data URI, minified code): cutting it into lines must
// cost its length once, not once per line.
func BenchmarkLongWord(b *testing.B) {
	word := strings.Repeat("QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo", 100<<10/35)
	r := NewRenderer(Dark)
	for name, doc := range map[string]string{"prose": word + "\n", "code": "```\n" + word + "\n```\n"} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				r.Render(doc, 80)
			}
		})
	}
}
