package tui

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Benchmarks of the conversation pane on a 5,000-message session. Run with
//
//	go test -run '^$' -bench . -benchmem ./tui/
//
// The goal for View is one frame at 60 Hz: under 16 ms.

const benchMessages = 5000

// benchWords is the vocabulary of the generated text.
var benchWords = strings.Fields(`the a to of and in is it that for on with as this be
	are from by or function value error return test file line model tool call request
	context cancel stream render width height cache message session config provider
	handler server client buffer channel goroutine mutex interface struct method`)

// benchText writes n words with a few longer identifiers in between.
func benchText(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		if r.IntN(12) == 0 {
			fmt.Fprintf(&b, "`%s.%s()`", benchWords[r.IntN(len(benchWords))], strings.ToUpper(benchWords[r.IntN(len(benchWords))]))
			continue
		}
		b.WriteString(benchWords[r.IntN(len(benchWords))])
	}
	return b.String()
}

// benchAnswer is an assistant answer in markdown-ish text: paragraphs, a
// list, sometimes a code block.
func benchAnswer(r *rand.Rand) string {
	var parts []string
	for range 1 + r.IntN(4) {
		parts = append(parts, benchText(r, 20+r.IntN(80)))
	}
	if r.IntN(2) == 0 {
		var list []string
		for range 2 + r.IntN(4) {
			list = append(list, "- "+benchText(r, 5+r.IntN(15)))
		}
		parts = append(parts, strings.Join(list, "\n"))
	}
	if r.IntN(3) == 0 {
		var code []string
		for i := range 3 + r.IntN(12) {
			code = append(code, fmt.Sprintf("    %sif err := %s(ctx, %d); err != nil {", strings.Repeat("\t", i%3), benchWords[r.IntN(len(benchWords))], i))
		}
		parts = append(parts, strings.Join(code, "\n"))
	}
	return strings.Join(parts, "\n\n")
}

// benchConversation builds benchMessages items as a session produces them:
// a prompt, a few tool calls with real-sized results, an answer, now and
// then a note.
func benchConversation(st *styles) *chatList {
	r := rand.New(rand.NewPCG(1, 2))
	c := newChatList()
	for c.len() < benchMessages {
		c.append(&wrapTextItem{text: "> " + benchText(r, 8+r.IntN(30))})
		if r.IntN(4) == 0 {
			c.append(newNoteItem(st, "picked grep, read_file"))
		}
		for k := range r.IntN(4) {
			id := fmt.Sprintf("call_%d_%d", c.len(), k)
			var b *toolBlock
			switch r.IntN(3) {
			case 0:
				b = callBlock(st, id, "read_file", fmt.Sprintf(`{"path":"internal/%s/%s.go"}`, benchWords[r.IntN(len(benchWords))], benchWords[r.IntN(len(benchWords))]))
				b.finish(numbered(40+r.IntN(160), "%d\t"+benchText(r, 8)), false, time.Duration(r.IntN(50))*time.Millisecond, nil)
			case 1:
				b = callBlock(st, id, "grep", `{"pattern":"func .*Render","path":"tui"}`)
				b.finish(numbered(5+r.IntN(30), "tui/file.go:%d: "+benchText(r, 10)), false, time.Duration(r.IntN(200))*time.Millisecond, nil)
			default:
				b = callBlock(st, id, "bash", `{"command":"go test ./... 2>&1 | tail -20"}`)
				b.finish(numbered(3+r.IntN(20), "ok  \tgithub.com/agent-dev/agent/pkg%d\t0.2s")+"\nexit status 0", false, time.Duration(r.IntN(5000))*time.Millisecond, map[string]any{"exit_code": 0})
			}
			if r.IntN(10) == 0 {
				b.setExpanded(true)
			}
			c.append(b)
		}
		c.append(&wrapTextItem{text: benchAnswer(r)})
	}
	return c
}

func BenchmarkChatListView(b *testing.B) {
	const w, h = 120, 50
	st := newStyles(true)
	cases := []struct {
		name  string
		setup func(c *chatList)
		frame func(c *chatList, i int) string
	}{
		{"following", nil, func(c *chatList, _ int) string { return c.View(w, h) }},
		{"middle", func(c *chatList) { c.scrollTo(benchMessages / 2) }, func(c *chatList, _ int) string { return c.View(w, h) }},
		// Every frame a new width: nothing visible is cached (a resize).
		{"following_resized", nil, func(c *chatList, i int) string { return c.View(w-i%2, h) }},
		{"middle_resized", func(c *chatList) { c.scrollTo(benchMessages / 2) }, func(c *chatList, i int) string { return c.View(w-i%2, h) }},
		// Mouse wheel from the middle towards the top: 3 lines a frame.
		{"wheel", func(c *chatList) { c.scrollTo(benchMessages / 2) }, func(c *chatList, _ int) string {
			c.scrollUp(3)
			return c.View(w, h)
		}},
		// A page a frame from the bottom up, rendering items never seen.
		{"page_up", nil, func(c *chatList, _ int) string {
			c.pageUp()
			if first, _ := c.visible(); first == 0 {
				c.bottom()
			}
			return c.View(w, h)
		}},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			c := benchConversation(st)
			c.View(w, h)
			if tc.setup != nil {
				tc.setup(c)
				c.View(w, h)
			}
			i := 0
			for b.Loop() {
				if out := tc.frame(c, i); len(out) == 0 {
					b.Fatal("empty view")
				}
				i++
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(i)/1000, "ms/frame")
		})
	}
}

// BenchmarkChatListMemory builds the conversation and reports the live heap
// it takes (HeapAlloc after a GC, less the heap before): once as built and
// shown at the bottom, and once after every item was rendered (all caches
// filled, as after scrolling through the whole session).
func BenchmarkChatListMemory(b *testing.B) {
	const w, h = 120, 50
	st := newStyles(true)
	heap := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	var shown, all uint64
	for b.Loop() {
		before := heap()
		c := benchConversation(st)
		c.View(w, h)
		shown = heap() - before
		for i := range c.len() {
			c.at(i).Render(w)
		}
		all = heap() - before
		runtime.KeepAlive(c)
	}
	b.ReportMetric(float64(shown)/(1<<20), "MiB-built")
	b.ReportMetric(float64(all)/(1<<20), "MiB-all-rendered")
	b.ReportMetric(float64(benchMessages), "items")
}
