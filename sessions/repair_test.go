package sessions

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/agent-dev/agent/providers"
)

// checkRequest reports why msgs is not a history that both OpenAI's chat
// completions and Anthropic's messages APIs accept, or nil: it starts with
// a user message; no two user or two assistant messages are adjacent; every
// message has parts of its role's kinds; thinking only opens an assistant
// message; call ids are unique; every tool call is followed, before any
// other message, by exactly one result per call, and no result stands
// anywhere else.
func checkRequest(msgs []providers.Message) error {
	if len(msgs) > 0 && msgs[0].Role != providers.RoleUser {
		return fmt.Errorf("message 0 is %s, not user", msgs[0].Role)
	}
	seen := map[string]bool{}
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if len(m.Parts) == 0 {
			return fmt.Errorf("message %d (%s) is empty", i, m.Role)
		}
		if i > 0 && m.Role != providers.RoleTool && msgs[i-1].Role == m.Role {
			return fmt.Errorf("messages %d and %d are both %s", i-1, i, m.Role)
		}
		switch m.Role {
		case providers.RoleUser:
			for _, p := range m.Parts {
				if _, ok := p.(providers.Text); !ok {
					return fmt.Errorf("user message %d holds a %T", i, p)
				}
			}
		case providers.RoleTool:
			return fmt.Errorf("message %d is a tool result with no call before it", i)
		case providers.RoleAssistant:
			thinking := true
			pending := map[string]bool{}
			for _, p := range m.Parts {
				switch p := p.(type) {
				case providers.Reasoning:
					if !thinking {
						return fmt.Errorf("assistant message %d: thinking after other parts", i)
					}
				case providers.ToolCall:
					thinking = false
					if seen[p.ID] {
						return fmt.Errorf("assistant message %d: call id %s used twice", i, p.ID)
					}
					seen[p.ID], pending[p.ID] = true, true
				case providers.Text:
					thinking = false
				default:
					return fmt.Errorf("assistant message %d holds a %T", i, p)
				}
			}
			for i+1 < len(msgs) && msgs[i+1].Role == providers.RoleTool {
				i++
				if len(msgs[i].Parts) != 1 {
					return fmt.Errorf("tool message %d has %d parts", i, len(msgs[i].Parts))
				}
				r, ok := msgs[i].Parts[0].(providers.ToolResult)
				if !ok || !pending[r.CallID] {
					return fmt.Errorf("tool message %d answers %q, which the call before it did not ask for (or twice)", i, r.CallID)
				}
				delete(pending, r.CallID)
			}
			if len(pending) > 0 {
				return fmt.Errorf("assistant message %d: %d calls without a result", i, len(pending))
			}
		}
	}
	return nil
}

// process writes what one agent process writes to a session: turns of a
// user message, steps of an assistant message with calls and their
// results, and a final answer. Call ids come from a small pool, as servers
// that send none get call_0, call_1, ... in every process.
func process(r *rand.Rand, name string) []providers.Message {
	var out []providers.Message
	for turn := range 1 + r.IntN(3) {
		out = append(out, providers.Message{Role: providers.RoleUser, Parts: []providers.Part{providers.Text{Text: fmt.Sprintf("%s: prompt %d", name, turn)}}})
		for range r.IntN(3) {
			a := providers.Message{Role: providers.RoleAssistant}
			if r.IntN(2) == 0 {
				a.Parts = append(a.Parts, providers.Reasoning{Text: "hmm", Signature: "sig"})
			}
			if r.IntN(2) == 0 {
				a.Parts = append(a.Parts, providers.Text{Text: name + ": let me look"})
			}
			var calls []providers.ToolCall
			for range 1 + r.IntN(3) {
				id := fmt.Sprintf("call_%d", r.IntN(4))
				if r.IntN(2) == 0 {
					id = fmt.Sprintf("%s_%d", name, r.IntN(1000))
				}
				c := providers.ToolCall{ID: id, Name: "bash", Arguments: `{"command":"ls"}`}
				calls = append(calls, c)
				a.Parts = append(a.Parts, c)
			}
			out = append(out, a)
			for _, c := range calls {
				res := providers.Message{Role: providers.RoleTool, Parts: []providers.Part{providers.ToolResult{CallID: c.ID, Name: c.Name, Content: name + " output"}}}
				switch r.IntN(6) {
				case 0: // never written: the process died
				case 1:
					out = append(out, res, res) // written twice
				default:
					out = append(out, res)
				}
			}
		}
		out = append(out, providers.Message{Role: providers.RoleAssistant, Parts: []providers.Part{providers.Text{Text: name + ": done"}}})
	}
	return out
}

// interleave merges the processes' writes in a random order that keeps
// each one's, stops at a random point (a kill) and loses a few messages.
func interleave(r *rand.Rand, procs [][]providers.Message) []providers.Message {
	var out []providers.Message
	for {
		var live []int
		for i, p := range procs {
			if len(p) > 0 {
				live = append(live, i)
			}
		}
		if len(live) == 0 {
			break
		}
		i := live[r.IntN(len(live))]
		if r.IntN(12) != 0 {
			out = append(out, procs[i][0])
		}
		procs[i] = procs[i][1:]
	}
	return out[:r.IntN(len(out)+1)]
}

func TestRepairedHistoryIsAValidRequest(t *testing.T) {
	statuses := []Status{StatusRunning, StatusCompleted, StatusFailed, StatusCancelled}
	invalid := 0 // written histories that were not valid requests as stored
	for seed := range uint64(3000) {
		r := rand.New(rand.NewPCG(seed, 15))
		var procs [][]providers.Message
		for p := range 1 + r.IntN(4) {
			procs = append(procs, process(r, fmt.Sprintf("p%d", p)))
		}
		written := interleave(r, procs)
		if checkRequest(written) != nil {
			invalid++
		}
		// A compaction restarts the history at some message (a tool result
		// too, in a damaged store); its summary is a user message before it.
		start, atStart := 0, true
		if r.IntN(4) == 0 && len(written) > 0 {
			start, atStart = r.IntN(len(written)), false
		}
		recs := make([]MessageRecord, 0, len(written)-start)
		rowIDs := make([]int64, 0, len(written)-start)
		for i, m := range written[start:] {
			recs = append(recs, MessageRecord{Seq: start + i + 1, Message: m})
			rowIDs = append(rowIDs, int64(start+i+1))
		}
		finished := func(k callKey) (providers.ToolResult, bool, error) {
			if k.message%3 == 0 {
				return providers.ToolResult{CallID: k.callID, Name: "bash", Content: "finished"}, true, nil
			}
			return providers.ToolResult{}, false, nil
		}
		msgs, seqs, err := repairHistory(recs, rowIDs, statuses[r.IntN(len(statuses))], atStart, finished)
		if err != nil {
			t.Fatal(err)
		}
		if len(seqs) != len(msgs) {
			t.Fatalf("seed %d: %d seqs for %d messages", seed, len(seqs), len(msgs))
		}
		if !atStart {
			summary := providers.Message{Role: providers.RoleUser, Parts: []providers.Part{providers.Text{Text: "summary"}}}
			h := &history{msgs: []providers.Message{summary}, seqs: []int{0}}
			for i, m := range msgs {
				h.add(m, seqs[i])
			}
			msgs = h.msgs
		}
		if err := checkRequest(msgs); err != nil {
			t.Fatalf("seed %d: %v\nwritten: %+v\nloaded: %+v", seed, err, written, msgs)
		}
		// Nothing a user wrote is lost.
		users := 0
		for _, m := range written[start:] {
			if m.Role == providers.RoleUser {
				users++
			}
		}
		got := 0
		for _, m := range msgs {
			if m.Role == providers.RoleUser {
				for _, p := range m.Parts {
					got += countPrompts(p.(providers.Text).Text)
				}
			}
		}
		if got != users {
			t.Fatalf("seed %d: %d prompts loaded, %d written", seed, got, users)
		}
	}
	if invalid < 1000 {
		t.Errorf("only %d of 3000 written histories were invalid as stored: the generator is too tame", invalid)
	}
}

// countPrompts counts the "pN: prompt M" texts in s.
func countPrompts(s string) int {
	n := 0
	for i := 0; i+len(": prompt ") <= len(s); i++ {
		if s[i:i+len(": prompt ")] == ": prompt " {
			n++
		}
	}
	return n
}

// TestInterleavedWritersLoadAsAValidRequest writes interleavings through
// the store, by two processes' stores on one file, and loads them.
func TestInterleavedWritersLoadAsAValidRequest(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "agent.db")
	a, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, 16))
		ss, err := a.Create(ctx, NewSession{Dir: t.TempDir(), Model: "m"})
		if err != nil {
			t.Fatal(err)
		}
		procs := [][]providers.Message{process(r, "a"), process(r, "b")}
		recorders := []*Recorder{a.Recorder(ss.ID), b.Recorder(ss.ID)}
		for len(procs[0])+len(procs[1]) > 0 {
			i := r.IntN(2)
			if len(procs[i]) == 0 {
				i = 1 - i
			}
			if err := recorders[i].AppendMessage(ctx, procs[i][0], providers.Usage{}); err != nil {
				t.Fatal(err)
			}
			procs[i] = procs[i][1:]
		}
		msgs, err := b.Messages(ctx, ss.ID)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkRequest(msgs); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
}
