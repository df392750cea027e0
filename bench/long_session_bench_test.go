package bench

import (
	"context"
	"fmt"
	"github.com/agent-dev/agent/providers"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/conversation"
	"github.com/agent-dev/agent/internal/scripted"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers/openai"
	"github.com/agent-dev/agent/sessions"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/fs"
	"github.com/agent-dev/agent/tools/picker"
)

// longSteps is the length of the long session: one turn of that many steps.
const longSteps = 300

// reads answers like a model that reads a file once per step until it has
// read it longSteps-1 times in all (a compaction's summary says how many it
// summarises), then answers; asked without tools, it summarises.
func reads(c scripted.ChatRequest) scripted.Reply {
	seen := 0
	for _, m := range c.Messages {
		if m.Role == "tool" {
			seen++
		}
		if _, after, ok := strings.Cut(m.Text(), "Reads so far:"); ok {
			var n int
			fmt.Sscanf(after, "%d", &n)
			seen += n
		}
	}
	if !c.MayCallTools() {
		return scripted.Text(fmt.Sprintf("Goal: read the file again and again. Reads so far: %d. Next step: read it again.", seen))
	}
	if seen >= longSteps-1 {
		return scripted.Text("Done reading.")
	}
	return scripted.ToolCalls(scripted.Call{ID: fmt.Sprintf("r%d", seen), Name: "read_file", Arguments: `{"path":"big.txt"}`})
}

// BenchmarkLongSession runs a 300-step turn in a 16,000-token window, with
// the session recorded in SQLite and read_file reading a 4 KB file at each
// step, and reports the time per step of its first and last 50 steps, the
// live heap after step 50 and after the last, the largest request in tokens
// and the number of compactions. Flat figures mean that a long session costs
// per step what a short one does:
//
//	go test -run '^$' -bench LongSession -benchtime 3x ./bench/
func BenchmarkLongSession(b *testing.B) {
	dir := b.TempDir()
	var text strings.Builder
	for i := 1; text.Len() < 4000; i++ {
		fmt.Fprintf(&text, "line %d of a file that fills the context window quickly\n", i)
	}
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), []byte(text.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer root.Close()
	reg, err := tools.NewRegistry(fs.Tools(root)...)
	if err != nil {
		b.Fatal(err)
	}
	store, err := sessions.Open(context.Background(), filepath.Join(b.TempDir(), "agent.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()

	var first, last, heap50, heapEnd, largest, compactions float64
	for range b.N {
		srv := scripted.Start(scripted.Options{Respond: reads, MeasureUsage: true, DiscardRequests: true})
		l, err := loop.New(loop.Config{
			Provider: openai.New(openai.Config{BaseURL: srv.URL(), MaxRetries: -1}), Model: "m",
			Catalog: picker.New(reg, picker.ModePick, reg.Names()), MaxSteps: longSteps,
			Window: 16000, AutoCompact: 0.8,
		})
		if err != nil {
			b.Fatal(err)
		}
		sess, err := store.Create(context.Background(), sessions.NewSession{Dir: dir, Model: "m", SystemPrompt: "You read files."})
		if err != nil {
			b.Fatal(err)
		}
		conv := conversation.New(sess.SystemPrompt, store.Recorder(sess.ID))
		var starts []time.Time
		var done loop.Done
		for ev := range l.Run(context.Background(), conv, providers.UserText("read big.txt again and again")) {
			switch ev := ev.(type) {
			case loop.StepStarted:
				starts = append(starts, time.Now())
				if ev.Step == 51 {
					heap50 += liveHeapMB()
				}
			case loop.Compacted:
				compactions++
			case loop.Done:
				done = ev
			}
		}
		starts = append(starts, time.Now())
		heapEnd += liveHeapMB()
		if done.Reason != loop.StopAnswered || done.Steps != longSteps {
			b.Fatalf("the session ended %s after %d steps: %v", done.Reason, done.Steps, done.Err)
		}
		first += float64(starts[50].Sub(starts[0]).Milliseconds()) / 50
		last += float64(starts[longSteps].Sub(starts[longSteps-50]).Milliseconds()) / 50
		largest = max(largest, float64(srv.LargestPrompt()))
		srv.Close()
	}
	n := float64(b.N)
	b.ReportMetric(first/n, "ms/step-first50")
	b.ReportMetric(last/n, "ms/step-last50")
	b.ReportMetric(heap50/n, "MB-heap@50")
	b.ReportMetric(heapEnd/n, "MB-heap@300")
	b.ReportMetric(largest, "max-req-tokens")
	b.ReportMetric(compactions/n, "compactions")
}

// liveHeapMB collects garbage and returns the live heap in MiB.
func liveHeapMB() float64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return float64(m.HeapInuse) / (1 << 20)
}
