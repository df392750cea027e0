package tui

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/agent-dev/agent/conversation"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/picker"
)

// benchTurns turns of four items each make a 5,000-item conversation.
const benchTurns = 1250

// loadedModel returns the real top-level model holding a 5,000-item
// conversation made of what turns really produce: the prompt, a markdown
// answer with a list and a code block, a tool block with a 40-line result,
// and a final answer. Nothing is sent anywhere.
func loadedModel(tb testing.TB) *Model {
	tb.Helper()
	m := newBenchModel(tb, 120, 50)
	var result strings.Builder
	for i := range 40 {
		fmt.Fprintf(&result, "%6d\tfunc handler%d(w http.ResponseWriter, r *http.Request) {}\n", i+1, i)
	}
	for i := range benchTurns {
		m.chat.append(newUserItem(m.st, fmt.Sprintf("Question %d: where is the handler registered?", i)))
		m.handleEvent(loop.TextDelta{Text: "Let me look. The server has:\n\n- a router in `server.go`\n- handlers in `handlers.go`\n\n```go\nmux.HandleFunc(\"/\", index)\n```\n"})
		id := "call_" + strconv.Itoa(i)
		m.handleEvent(loop.ToolCallStarted{ID: id, Name: "read_file", Arguments: `{"path":"handlers.go"}`})
		m.handleEvent(loop.ToolCallFinished{ID: id, Name: "read_file", Content: result.String(), Duration: 3 * time.Millisecond})
		m.handleEvent(loop.TextDelta{Text: fmt.Sprintf("The handler is registered in **server.go:%d**.", i)})
		m.handleEvent(loop.Done{Reason: loop.StopAnswered})
	}
	if n := m.chat.len(); n != 4*benchTurns {
		tb.Fatalf("conversation has %d items", n)
	}
	return m
}

// BenchmarkConversationView times the whole interface's View() over a
// 5,000-item conversation, following the bottom and scrolled to the middle
// (goal: under 16 ms, one frame at 60 Hz).
func BenchmarkConversationView(b *testing.B) {
	m := loadedModel(b)
	m.View()
	b.Run("bottom", func(b *testing.B) {
		for b.Loop() {
			m.View()
		}
	})
	b.Run("middle", func(b *testing.B) {
		m.chat.top()
		for range m.chat.len() / 2 {
			m.chat.scrollDown(7)
		}
		for b.Loop() {
			m.chat.scrollUp(1) // a new position each frame
			m.View()
		}
	})
}

// BenchmarkConversationRSS reports the resident memory of the process after
// loading the 5,000-item conversation and showing it (Linux: VmRSS of
// /proc/self/status), beside the resident memory before loading.
func BenchmarkConversationRSS(b *testing.B) {
	before := rssMiB()
	var after float64
	for b.Loop() {
		m := loadedModel(b)
		m.View()
		runtime.GC()
		after = rssMiB()
		runtime.KeepAlive(m)
	}
	b.ReportMetric(before, "MiB-RSS-before")
	b.ReportMetric(after, "MiB-RSS-loaded")
}

// rssMiB is the process's resident set in MiB, 0 where /proc is missing.
func rssMiB() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return float64(kb) / 1024
		}
	}
	return 0
}

// BenchmarkStreamingAnswerFrame times one delta and one frame (View) of an
// answer that already holds N paragraphs: the cost a token pays while the
// answer streams, as the answer grows.
func BenchmarkStreamingAnswerFrame(b *testing.B) {
	for _, paragraphs := range []int{100, 2000} {
		b.Run(fmt.Sprintf("paragraphs=%d", paragraphs), func(b *testing.B) {
			m := loadedModel(b)
			m.View()
			var text strings.Builder
			for i := range paragraphs {
				fmt.Fprintf(&text, "Paragraph %d of a long answer, with `code` and **bold** words in it.\n\n", i)
			}
			m.handleEvent(loop.TextDelta{Text: text.String()})
			m.View()
			for b.Loop() {
				m.handleEvent(loop.TextDelta{Text: "word "})
				m.View()
			}
		})
	}
}

// BenchmarkStreamingAnswerDeltas streams a 20,000-byte answer in 5,000
// deltas of 4 bytes into the real model in a 100x30 terminal, with a View
// after every delta (the worst case: the interface draws at most one frame
// per frameInterval, see waitEvent), and reports the cost of a delta and
// its frame over the first 500 deltas and over the last 500. The answer is
// ten copies of the first 2,000 bytes of bench/testdata/stream.md (the
// answer bench/stream.sh streams), cut after a block and padded with a
// paragraph, so both spans render the same blocks, one at the start of the
// answer and one at its end: equal figures mean a delta costs the lines it
// changes, not the length of the answer.
func BenchmarkStreamingAnswerDeltas(b *testing.B) {
	text, err := os.ReadFile("../bench/testdata/stream.md")
	if err != nil {
		b.Fatal(err)
	}
	const part = 2000
	cut := strings.LastIndex(string(text[:part-100]), "\n\n") + 2
	pad := strings.Repeat("w", part-cut-2)
	answer := strings.Repeat(string(text[:cut])+pad+"\n\n", 10)
	var deltas []string
	for s := answer; s != ""; {
		n := min(4, len(s))
		deltas, s = append(deltas, s[:n]), s[n:]
	}
	var first, last time.Duration
	for b.Loop() {
		b.StopTimer()
		m := newBenchModel(b, 100, 30)
		b.StartTimer()
		for i, d := range deltas {
			start := time.Now()
			m.handleEvent(loop.TextDelta{Text: d})
			m.View()
			switch el := time.Since(start); {
			case i < 500:
				first += el
			case i >= len(deltas)-500:
				last += el
			}
		}
		m.handleEvent(loop.Done{Reason: loop.StopAnswered})
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(deltas)), "ns/delta")
	b.ReportMetric(float64(first.Nanoseconds())/float64(b.N*500), "ns/delta-first500")
	b.ReportMetric(float64(last.Nanoseconds())/float64(b.N*500), "ns/delta-last500")
}

// newBenchModel returns the real top-level model with an empty
// conversation in a width x height terminal.
func newBenchModel(tb testing.TB, width, height int) *Model {
	tb.Helper()
	reg, _ := tools.NewRegistry()
	set := picker.New(reg, picker.ModePick)
	m, err := New(Config{
		Model: "bench", Dir: "/repo",
		Session: &Session{ID: "bench", Conv: conversation.New("", nil), NewLoop: func(model string) (*loop.Loop, error) {
			return loop.New(loop.Config{Provider: fake.New(), Model: model, Catalog: set})
		}},
		Tools: func(picked []string) ([]string, []string) { return nil, nil },
	})
	if err != nil {
		tb.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: width, Height: height})
	return m
}

// BenchmarkStreamingBatch times what the interface does per frame while an
// answer streams at a delta a millisecond: one Update with a batch of 50
// deltas of 4 bytes (one frameInterval's worth) and one View, in a 100x30
// terminal, over a 20,000-byte answer (bench/testdata/stream.md, 100
// batches per op). "input=cached" is the interface as it runs (the
// input's lines are reused across a turn's events); "input=redrawn" lays
// the input out again every frame, as before.
func BenchmarkStreamingBatch(b *testing.B) {
	text, err := os.ReadFile("../bench/testdata/stream.md")
	if err != nil {
		b.Fatal(err)
	}
	var batches [][]loop.Event
	for s := string(text); s != ""; {
		var evs []loop.Event
		for len(evs) < 50 && s != "" {
			n := min(4, len(s))
			evs, s = append(evs, loop.TextDelta{Text: s[:n]}), s[n:]
		}
		batches = append(batches, evs)
	}
	for _, cached := range []bool{true, false} {
		name := "input=cached"
		if !cached {
			name = "input=redrawn"
		}
		b.Run(name, func(b *testing.B) {
			ch := make(chan loop.Event, 64)
			for b.Loop() {
				b.StopTimer()
				m := newBenchModel(b, 100, 30)
				m.running, m.started = true, time.Now()
				m.View()
				b.StartTimer()
				for _, evs := range batches {
					m.Update(eventsMsg{ch, evs})
					if !cached {
						m.inputView.ok = false
					}
					m.View()
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(batches)), "ns/frame")
		})
	}
}
