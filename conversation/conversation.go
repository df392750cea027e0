// Package conversation holds the one copy of a session's conversation that
// the whole program shares: the system prompt, the messages the next request
// carries (after the latest compaction, the summary first), the tools the
// model has picked, and the session's token usage. The loop appends to it,
// the interface and the headless printer read it, and a Recorder (the
// session store) persists every change the moment it happens.
//
// A Conversation is safe for concurrent use: the loop's goroutine changes it
// while the interface reads snapshots (/tools, /context).
package conversation

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/agent-dev/agent/providers"
)

// Recorder persists a conversation as it changes. Each call is made once the
// change is decided and before it becomes visible; an error leaves the
// Conversation unchanged. Calls come from the one goroutine that changes the
// conversation (the loop's), never under the Conversation's lock, so readers
// never wait for the store. package sessions satisfies it.
type Recorder interface {
	// AppendMessage records m as the session's next message, with the usage
	// of the response that produced it (zero for all but assistant
	// messages).
	AppendMessage(ctx context.Context, m providers.Message, usage providers.Usage) error
	// SavePicks records the picked tools' names (sorted): the whole set,
	// replacing what was saved before.
	SavePicks(ctx context.Context, picked []string) error
	// SaveCompaction records a compaction point: from then on the request
	// history is the summary followed by the messages from FirstSeq on.
	SaveCompaction(ctx context.Context, c Compaction) error
	// RecordUsage adds the usage of a request that left no message (a
	// summary request whose compaction failed, a response with nothing to
	// keep) to the session's totals.
	RecordUsage(ctx context.Context, u providers.Usage) error
}

// Compaction is a point where older messages were replaced by a summary.
type Compaction struct {
	// FirstSeq is the store's sequence number (1-based) of the first
	// message kept verbatim; every message before it is summarised. It is
	// one past the last stored message when nothing was kept.
	FirstSeq int
	// Summary is the model's summary of the messages before FirstSeq.
	Summary string
	// BeforeTokens and AfterTokens estimate the request's size in tokens
	// before and after the compaction.
	BeforeTokens, AfterTokens int
	// Usage is what the summary request cost; the store adds it to the
	// session's totals.
	Usage providers.Usage
}

// State is a conversation as a store loads it.
type State struct {
	// System is the session's system prompt.
	System string
	// Messages are the messages the next request carries, in order: after a
	// compaction, SummaryMessage first. Every tool call has its result.
	Messages []providers.Message
	// Seqs gives each message's sequence number in the store, 0 for one the
	// store made up (a summary, a result supplied for an interrupted call).
	// It has the length of Messages.
	Seqs []int
	// NextSeq is the sequence number the next appended message gets.
	NextSeq int
	// Picked are the picked tools' names.
	Picked []string
	// Usage is the session's total usage so far.
	Usage providers.Usage
	// Compactions counts the compactions of the session.
	Compactions int
}

// Conversation is a session's conversation. The zero value is not usable;
// use New or Restore. Its readers may be many; its writer (Append, Pick,
// SavePicks, Compact) one goroutine at a time, the running turn's.
type Conversation struct {
	mu          sync.Mutex
	system      string
	msgs        []providers.Message
	seqs        []int
	nextSeq     int
	picked      []string // sorted
	picksDirty  bool     // picked changed since it was last saved
	usage       providers.Usage
	last        Measure
	perByte     float64 // tokens per byte the server's counts showed, 0 before any
	compactions int
	rec         Recorder
	// behind is the record AppendBehind began, nil when none is under
	// way: each write waits for it first (Settle). behindAdded: its message
	// was added as a message of its own (not merged into the one before).
	// The writer's alone.
	behind      chan error
	behindAdded bool
	// unstored is one past the index of the last message when that is one
	// whose record behind failed (0: none): a message merged into it takes
	// its own sequence number, the store's only message of the two.
	unstored int
}

// NextSeq is the store's sequence number (1-based) the next message will
// take: one past the last message appended, whether its record has landed
// or is under way (AppendBehind; a record that failed gives its number
// back at Settle).
func (c *Conversation) NextSeq() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nextSeq
}

// SessionID is the id of the session the conversation is recorded in: its
// Recorder's, when the recorder has a method SessionID() string (the
// session store's does); "" otherwise. Tools keep their per-session state
// under it.
func (c *Conversation) SessionID() string {
	if r, ok := c.rec.(interface{ SessionID() string }); ok {
		return r.SessionID()
	}
	return ""
}

// Measure is what is known of the last request: its size in bytes as
// Size counts it and the input tokens the server reported for it (0 when
// it reported none).
type Measure struct {
	Bytes       int
	InputTokens int
	// Cached is whether the server reported prompt cache reads or
	// writes for the request: its prefix is in the cache for the next.
	Cached bool
}

// New returns an empty conversation with a system prompt. rec may be nil:
// then nothing is persisted.
func New(system string, rec Recorder) *Conversation {
	return &Conversation{system: system, nextSeq: 1, rec: rec}
}

// Restore returns the conversation a store loaded. rec may be nil.
func Restore(s State, rec Recorder) *Conversation {
	seqs := s.Seqs
	if len(seqs) != len(s.Messages) {
		seqs = make([]int, len(s.Messages))
	}
	next := max(s.NextSeq, 1)
	picked := slices.Clone(s.Picked)
	slices.Sort(picked)
	return &Conversation{
		system: s.System, msgs: slices.Clone(s.Messages), seqs: slices.Clone(seqs), nextSeq: next,
		picked: slices.Compact(picked), usage: s.Usage, compactions: s.Compactions, rec: rec,
	}
}

// ErrNotEmpty is SetSystem's error once the conversation has messages.
var ErrNotEmpty = errors.New("the conversation has messages already")

// SetSystem replaces the system prompt of a conversation that has no
// message yet (a host's own prompt, told after the session was made);
// afterwards it returns ErrNotEmpty and changes nothing, since a session's
// system prompt is sent unchanged at the head of every request.
func (c *Conversation) SetSystem(system string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.msgs) > 0 || c.nextSeq > 1 {
		return ErrNotEmpty
	}
	c.system = system
	return nil
}

// System returns the system prompt.
func (c *Conversation) System() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.system
}

// Messages returns the messages the next request carries. The slice is a
// snapshot: later appends and compactions do not change it. Callers must not
// modify the messages.
func (c *Conversation) Messages() []providers.Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clip(c.msgs)
}

// Len returns the number of messages the next request carries.
func (c *Conversation) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.msgs)
}

// Append records m (and, first, picks not saved yet) and then adds m to the
// conversation, adding usage to the session's total. On a recording error
// nothing changes.
func (c *Conversation) Append(ctx context.Context, m providers.Message, usage providers.Usage) error {
	if err := c.SavePicks(ctx); err != nil {
		return err
	}
	if c.rec != nil {
		if err := c.rec.AppendMessage(ctx, m, usage); err != nil {
			return err
		}
	}
	c.add(m, usage)
	return nil
}

// AppendBehind is Append whose record goes on in the background: m is in
// the conversation at once (the next request carries it), and in the
// store before any later write of the conversation begins (each waits for
// it) or once Settle returns. The record's error is returned by that write,
// or by Settle; the message stays in the conversation either way. The loop
// records a turn's prompt so: its write (the first of a process prepares
// the statements, 1 to 1.5 ms) goes on beside the first request.
func (c *Conversation) AppendBehind(ctx context.Context, m providers.Message, usage providers.Usage) error {
	if err := c.SavePicks(ctx); err != nil {
		return err
	}
	if c.rec != nil {
		done := make(chan error, 1)
		c.behind = done
		go func() { done <- c.rec.AppendMessage(ctx, m, usage) }()
	}
	c.behindAdded = c.add(m, usage)
	return nil
}

// Settle waits for the record AppendBehind began and returns its error;
// nil when there is none, or a later write returned it already. A record
// that failed leaves its message in the conversation as one the store does
// not hold (sequence number 0), and the next message takes the number the
// store will give it.
func (c *Conversation) Settle() error {
	if c.behind == nil {
		return nil
	}
	err := <-c.behind
	c.behind = nil
	if err != nil {
		c.mu.Lock()
		c.nextSeq--
		if c.behindAdded {
			c.seqs[len(c.seqs)-1] = 0
			c.unstored = len(c.seqs)
		}
		c.mu.Unlock()
	}
	return err
}

// add appends m to the messages in memory, with usage, and reports
// whether it became a message of its own (else it was merged into the one
// before, of the same role).
func (c *Conversation) add(m providers.Message, usage providers.Usage) (own bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n := len(c.msgs); n > 0 && m.Role != providers.RoleTool && c.msgs[n-1].Role == m.Role {
		// A prompt after a turn that never got an answer (the process
		// was killed): both APIs want roles to alternate. The store keeps
		// both messages; its loader merges them the same way.
		// Snapshots share the array: the merged message goes in a new one.
		c.msgs = append(slices.Clip(c.msgs[:n-1]), Merge(c.msgs[n-1], m))
		if c.unstored == n {
			c.seqs[n-1] = c.nextSeq
		}
	} else {
		c.msgs = append(c.msgs, m)
		c.seqs = append(c.seqs, c.nextSeq)
		own = true
	}
	c.unstored = 0
	c.nextSeq++
	c.usage = c.usage.Add(usage)
	return own
}

// Merge returns the message of prev's role that holds prev's parts then
// next's: a text that ends prev and one that starts next are joined by a
// blank line, and next's thinking is left out (thinking may only open an
// assistant message, and no provider needs an earlier turn's).
func Merge(prev, next providers.Message) providers.Message {
	parts := slices.Clone(prev.Parts)
	rest := slices.DeleteFunc(slices.Clone(next.Parts), func(p providers.Part) bool { _, ok := p.(providers.Reasoning); return ok })
	if len(parts) > 0 && len(rest) > 0 {
		a, aok := parts[len(parts)-1].(providers.Text)
		b, bok := rest[0].(providers.Text)
		if aok && bok {
			parts[len(parts)-1] = providers.Text{Text: a.Text + "\n\n" + b.Text}
			rest = rest[1:]
		}
	}
	return providers.Message{Role: prev.Role, Parts: append(parts, rest...)}
}

// AddUsage records usage that no message carries and adds it to the
// session's total. On a recording error nothing changes.
func (c *Conversation) AddUsage(ctx context.Context, u providers.Usage) error {
	if u == (providers.Usage{}) {
		return nil
	}
	if err := c.Settle(); err != nil {
		return err
	}
	if c.rec != nil {
		if err := c.rec.RecordUsage(ctx, u); err != nil {
			return err
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.usage = c.usage.Add(u)
	return nil
}

// Usage returns the session's total usage.
func (c *Conversation) Usage() providers.Usage {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.usage
}

// Picked returns the picked tools' names, sorted. The slice is a snapshot.
func (c *Conversation) Picked() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.picked)
}

// Pick adds names to the picked tools and returns those that were not
// picked before, in the order given. The change is saved with the next
// Append (a pick is always followed by the tool result that reports it), or
// by SavePicks.
func (c *Conversation) Pick(names ...string) (added []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, n := range names {
		if i, found := slices.BinarySearch(c.picked, n); !found {
			c.picked = slices.Insert(c.picked, i, n)
			added = append(added, n)
		}
	}
	if len(added) > 0 {
		c.picksDirty = true
	}
	return added
}

// SavePicks records picks that changed since they were last saved.
func (c *Conversation) SavePicks(ctx context.Context) error {
	c.mu.Lock()
	dirty, picked := c.picksDirty, slices.Clone(c.picked)
	c.mu.Unlock()
	if err := c.Settle(); err != nil {
		return err
	}
	if !dirty {
		return nil
	}
	if c.rec != nil {
		if err := c.rec.SavePicks(ctx, picked); err != nil {
			return err
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	// A pick made while saving stays dirty for the next save.
	c.picksDirty = !slices.Equal(picked, c.picked)
	return nil
}

// IndexOf returns the index in Messages() of the stored message seq, or
// -1 when the request history does not hold it (it was compacted, or is
// not there).
func (c *Conversation) IndexOf(seq int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, s := range c.seqs {
		if s == seq && seq > 0 {
			return i
		}
	}
	return -1
}

// Compactions returns how many compactions the session has had.
func (c *Conversation) Compactions() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.compactions
}

// Compact replaces the first n messages with a summary message
// (SummaryMessage(cp.Summary)) after recording the compaction point; cp's
// FirstSeq is filled in from n. n must fall on a message boundary that keeps
// every tool call with its results: Messages()[n] is not a tool message.
// cp.Usage is added to the session's total.
func (c *Conversation) Compact(ctx context.Context, n int, cp Compaction) error {
	c.mu.Lock()
	if n < 0 || n > len(c.msgs) {
		c.mu.Unlock()
		return fmt.Errorf("compacting %d of %d messages", n, len(c.msgs))
	}
	if n < len(c.msgs) && c.msgs[n].Role == providers.RoleTool {
		c.mu.Unlock()
		return fmt.Errorf("compacting %d messages would separate tool results from their call", n)
	}
	cp.FirstSeq = c.nextSeq
	for _, s := range c.seqs[n:] {
		if s > 0 {
			cp.FirstSeq = s
			break
		}
	}
	c.mu.Unlock()
	if err := c.SavePicks(ctx); err != nil {
		return err
	}
	if c.rec != nil {
		if err := c.rec.SaveCompaction(ctx, cp); err != nil {
			return err
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	msgs := make([]providers.Message, 0, len(c.msgs)-n+1)
	msgs = append(append(msgs, SummaryMessage(cp.Summary)), c.msgs[n:]...)
	seqs := append([]int{0}, c.seqs[n:]...)
	c.msgs, c.seqs = msgs, seqs
	c.unstored = 0 // its index moved
	c.compactions++
	c.usage = c.usage.Add(cp.Usage)
	c.last = Measure{}
	return nil
}

// Measured records the size of the request just sent and the input tokens
// the server reported for it, for Estimate; it also calibrates the tokens
// per byte, kept across compactions.
func (c *Conversation) Measured(m Measure) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.last = m
	if m.Bytes > 0 && m.InputTokens > 0 {
		c.perByte = float64(m.InputTokens) / float64(m.Bytes)
	}
}

// LastMeasure returns what Measured last recorded (zero after a compaction
// or before the first request).
func (c *Conversation) LastMeasure() Measure {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.last
}

// SummaryPrefix opens the user message that carries a compaction's summary.
const SummaryPrefix = "This session continues an earlier conversation whose older part was compacted. " +
	"Summary of it:\n\n"

// SummaryMessage is the user message that stands for the compacted part of
// a conversation.
func SummaryMessage(summary string) providers.Message {
	return providers.Message{Role: providers.RoleUser, Parts: []providers.Part{providers.Text{Text: SummaryPrefix + summary}}}
}
