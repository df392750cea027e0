package conversation_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/agent-dev/agent/conversation"
	"github.com/agent-dev/agent/providers"
)

// failing is a Recorder whose writes fail while fail is set.
type failing struct {
	fail  bool
	picks [][]string
	msgs  int
}

func (f *failing) AppendMessage(context.Context, providers.Message, providers.Usage) error {
	if f.fail {
		return errors.New("disk full")
	}
	f.msgs++
	return nil
}

func (f *failing) SavePicks(_ context.Context, picked []string) error {
	if f.fail {
		return errors.New("disk full")
	}
	f.picks = append(f.picks, picked)
	return nil
}

func (f *failing) RecordUsage(context.Context, providers.Usage) error {
	if f.fail {
		return errors.New("disk full")
	}
	return nil
}

func (f *failing) SaveCompaction(context.Context, conversation.Compaction) error {
	if f.fail {
		return errors.New("disk full")
	}
	return nil
}

func text(role providers.Role, s string) providers.Message {
	return providers.Message{Role: role, Parts: []providers.Part{providers.Text{Text: s}}}
}

func TestAFailedWriteChangesNothing(t *testing.T) {
	rec := &failing{}
	c := conversation.New("sys", rec)
	ctx := context.Background()
	if err := c.Append(ctx, text(providers.RoleUser, "one"), providers.Usage{InputTokens: 5}); err != nil {
		t.Fatal(err)
	}
	rec.fail = true
	c.Pick("grep")
	if err := c.Append(ctx, text(providers.RoleAssistant, "two"), providers.Usage{InputTokens: 7}); err == nil {
		t.Fatal("a failed write was not reported")
	}
	if c.Len() != 1 || c.Usage().InputTokens != 5 {
		t.Errorf("after a failed write: %d messages, usage %+v", c.Len(), c.Usage())
	}
	if err := c.Compact(ctx, 1, conversation.Compaction{Summary: "s"}); err == nil || c.Compactions() != 0 {
		t.Errorf("a failed compaction write: %v, %d compactions", err, c.Compactions())
	}
	rec.fail = false
	if err := c.Append(ctx, text(providers.RoleAssistant, "two"), providers.Usage{}); err != nil {
		t.Fatal(err)
	}
	if len(rec.picks) != 1 || strings.Join(rec.picks[0], ",") != "grep" {
		t.Errorf("the pick made while the store failed was saved as %v", rec.picks)
	}
}

func TestPickReportsOnlyNewNamesAndKeepsThemSorted(t *testing.T) {
	c := conversation.New("", nil)
	if added := c.Pick("read_file", "grep"); strings.Join(added, ",") != "read_file,grep" {
		t.Errorf("added %v", added)
	}
	if added := c.Pick("grep", "bash"); strings.Join(added, ",") != "bash" {
		t.Errorf("added %v", added)
	}
	if got := c.Picked(); strings.Join(got, ",") != "bash,grep,read_file" {
		t.Errorf("picked %v", got)
	}
}

func TestEstimateFromTheLastUsage(t *testing.T) {
	c := conversation.New(strings.Repeat("s", 400), nil)
	req := providers.Request{System: c.System(), Messages: []providers.Message{text(providers.RoleUser, strings.Repeat("u", 400))}}
	if got := c.Estimate(req); got != 200 {
		t.Errorf("unmeasured estimate = %d, want 800 bytes / 4 = 200", got)
	}
	// The server counted 300 tokens for those 800 bytes, a denser tokenizer
	// than 4 bytes a token: 400 bytes more add 400 × 300/800 = 150 tokens.
	c.Measured(conversation.Measure{Bytes: 800, InputTokens: 300})
	req.Messages = append(req.Messages, text(providers.RoleAssistant, strings.Repeat("a", 400)))
	if got := c.Estimate(req); got != 450 {
		t.Errorf("estimate after usage = %d, want 300 + 150", got)
	}
	// A sparser tokenizer (100 tokens for 800 bytes) is not trusted for what
	// was added: 4 bytes a token stays the floor.
	c.Measured(conversation.Measure{Bytes: 800, InputTokens: 100})
	if got := c.Estimate(req); got != 200 {
		t.Errorf("estimate after sparse usage = %d, want 100 + 100", got)
	}
	// A compaction resets the last measure but keeps the calibration.
	c.Measured(conversation.Measure{Bytes: 800, InputTokens: 400})
	if err := c.Append(context.Background(), text(providers.RoleUser, "x"), providers.Usage{}); err != nil {
		t.Fatal(err)
	}
	if err := c.Compact(context.Background(), 1, conversation.Compaction{Summary: "s"}); err != nil {
		t.Fatal(err)
	}
	if got := c.Estimate(req); got != 600 {
		t.Errorf("estimate after a compaction = %d, want 1,200 bytes at half a token each", got)
	}
}

// Readers take snapshots while the writer appends: run with -race.
func TestAppendMergesARoleThatRepeats(t *testing.T) {
	c := conversation.New("", nil)
	ctx := context.Background()
	c.Append(ctx, text(providers.RoleUser, "first prompt, never answered"), providers.Usage{})
	before := c.Messages()
	c.Append(ctx, text(providers.RoleUser, "second prompt"), providers.Usage{})
	msgs := c.Messages()
	if len(msgs) != 1 || msgs[0].Text() != "first prompt, never answered\n\nsecond prompt" {
		t.Errorf("messages %+v", msgs)
	}
	if before[0].Text() != "first prompt, never answered" {
		t.Errorf("an earlier snapshot changed: %+v", before)
	}
	c.Append(ctx, providers.Message{Role: providers.RoleAssistant, Parts: []providers.Part{providers.Text{Text: "answer"}}}, providers.Usage{})
	if c.Len() != 2 {
		t.Errorf("%d messages after the answer", c.Len())
	}
}

func TestSnapshotsWhileAppending(t *testing.T) {
	c := conversation.New("", nil)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range 200 {
			role := providers.RoleUser
			if i%2 == 1 {
				role = providers.RoleAssistant
			}
			c.Append(context.Background(), text(role, "m"), providers.Usage{InputTokens: 1})
			if i%10 == 0 {
				c.Pick("t" + string(rune('a'+i/10)))
			}
		}
	}()
	for range 200 {
		msgs := c.Messages()
		_ = c.Picked()
		_ = c.Usage()
		for _, m := range msgs {
			_ = m.Text()
		}
	}
	wg.Wait()
	if c.Len() != 200 || c.Usage().InputTokens != 200 {
		t.Errorf("%d messages, usage %+v", c.Len(), c.Usage())
	}
}

// SetSystem replaces the system prompt while the conversation is empty,
// and refuses once a message is in it.
func TestSetSystemOnlyWhileEmpty(t *testing.T) {
	c := conversation.New("agent's", nil)
	if err := c.SetSystem("the host's"); err != nil || c.System() != "the host's" {
		t.Fatalf("empty: %v, system %q", err, c.System())
	}
	if err := c.Append(context.Background(), providers.Message{Role: providers.RoleUser, Parts: []providers.Part{providers.Text{Text: "hi"}}}, providers.Usage{}); err != nil {
		t.Fatal(err)
	}
	if err := c.SetSystem("later"); !errors.Is(err, conversation.ErrNotEmpty) || c.System() != "the host's" {
		t.Errorf("after a message: %v, system %q", err, c.System())
	}
}

// held is a Recorder whose AppendMessage waits for release, and which logs
// the messages it recorded, in order; a record that begins while another
// waits is an overlap, logged at once.
type held struct {
	messagesOnly
	release chan struct{}
	started chan struct{} // a record began to wait
	fail    bool
	mu      sync.Mutex
	busy    bool
	overlap bool
	log     []string
}

func (h *held) AppendMessage(_ context.Context, m providers.Message, _ providers.Usage) error {
	h.mu.Lock()
	if h.busy {
		h.overlap = true
		h.log = append(h.log, m.Text())
		h.mu.Unlock()
		return nil
	}
	h.busy = true
	h.mu.Unlock()
	h.started <- struct{}{}
	<-h.release
	h.mu.Lock()
	defer h.mu.Unlock()
	h.busy = false
	if h.fail {
		h.fail = false
		return errors.New("disk full")
	}
	h.log = append(h.log, m.Text())
	return nil
}

// messagesOnly is the rest of a Recorder for recorders whose tests look
// at messages alone: picks, compactions and usage are taken and dropped.
type messagesOnly struct{}

func (messagesOnly) SavePicks(context.Context, []string) error                     { return nil }
func (messagesOnly) SaveCompaction(context.Context, conversation.Compaction) error { return nil }
func (messagesOnly) RecordUsage(context.Context, providers.Usage) error            { return nil }

// A prompt appended behind is in the conversation at once, while its record
// goes on; the next write waits for that record, so the store keeps the
// order, and its error is the next write's.
func TestAnAppendBehindIsSeenAtOnceAndRecordedFirst(t *testing.T) {
	h := &held{release: make(chan struct{}), started: make(chan struct{}, 2)}
	c := conversation.New("sys", h)
	ctx := context.Background()
	if err := c.AppendBehind(ctx, providers.UserText("prompt"), providers.Usage{}); err != nil {
		t.Fatal(err)
	}
	<-h.started // the prompt's record is under way, held
	if got := c.Messages(); len(got) != 1 || got[0].Text() != "prompt" {
		t.Fatalf("the conversation while the prompt is recorded: %+v", got)
	}
	answered := make(chan error, 1)
	go func() {
		answered <- c.Append(ctx, providers.Message{Role: providers.RoleAssistant, Parts: []providers.Part{providers.Text{Text: "answer"}}}, providers.Usage{})
	}()
	h.release <- struct{}{} // the prompt's record ends
	var err error
	select {
	case <-h.started: // then the answer's begins
		h.release <- struct{}{}
		err = <-answered
	case err = <-answered: // it did not wait for the prompt's
	}
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(h.log, ",") != "prompt,answer" || h.overlap {
		t.Fatalf("recorded %q (overlapping: %v), want the prompt first, alone", h.log, h.overlap)
	}

	// A record behind that fails: the next write says so and adds nothing.
	h.fail = true
	if err := c.AppendBehind(ctx, providers.UserText("second"), providers.Usage{}); err != nil {
		t.Fatal(err)
	}
	<-h.started
	h.release <- struct{}{}
	if err := c.Append(ctx, providers.Message{Role: providers.RoleAssistant, Parts: []providers.Part{providers.Text{Text: "lost"}}}, providers.Usage{}); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("the write after a failed record behind: %v, want its error", err)
	}
	if got := c.Messages(); len(got) != 3 || got[2].Text() != "second" {
		t.Errorf("messages: %+v", got)
	}
	if err := c.Settle(); err != nil {
		t.Errorf("Settle after the error was returned: %v", err)
	}
}

// Settle waits for a record behind and returns its error.
func TestSettleWaitsForTheRecordBehind(t *testing.T) {
	h := &held{release: make(chan struct{}), started: make(chan struct{}, 1), fail: true}
	c := conversation.New("", h)
	if err := c.AppendBehind(context.Background(), providers.UserText("prompt"), providers.Usage{}); err != nil {
		t.Fatal(err)
	}
	<-h.started
	settled := make(chan error)
	go func() { settled <- c.Settle() }()
	h.release <- struct{}{}
	if err := <-settled; err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("Settle: %v, want the record's error", err)
	}
}

// numbered numbers messages as sessions.Recorder does, one past the last
// stored; failNext makes the next AppendMessage fail.
type numbered struct {
	messagesOnly
	failNext bool
	stored   []string // index i holds sequence number i+1
}

func (s *numbered) AppendMessage(_ context.Context, m providers.Message, _ providers.Usage) error {
	if s.failNext {
		s.failNext = false
		return errors.New("database is locked")
	}
	s.stored = append(s.stored, m.Text())
	return nil
}

// After a prompt whose record behind failed (the turn ended at its
// response's record), the conversation's sequence numbers still name the
// store's messages: compaction points and rewinds are found by them.
func TestSequenceNumbersFollowTheStoreAfterAFailedRecordBehind(t *testing.T) {
	s := &numbered{failNext: true}
	c := conversation.New("sys", s)
	ctx := context.Background()
	answer := func(t string) providers.Message {
		return providers.Message{Role: providers.RoleAssistant, Parts: []providers.Part{providers.Text{Text: t}}}
	}
	if err := c.AppendBehind(ctx, providers.UserText("p1"), providers.Usage{}); err != nil {
		t.Fatal(err)
	}
	if err := c.Append(ctx, answer("a1"), providers.Usage{}); err == nil {
		t.Fatal("the answer's write did not return the prompt's error")
	}
	for _, m := range []providers.Message{providers.UserText("p2"), answer("a2"), providers.UserText("p3")} {
		var err error
		if m.Role == providers.RoleUser {
			err = c.AppendBehind(ctx, m, providers.Usage{})
		} else {
			err = c.Append(ctx, m, providers.Usage{})
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Settle(); err != nil {
		t.Fatal(err)
	}
	msgs := c.Messages()
	for seq := 1; seq <= len(s.stored); seq++ {
		i := c.IndexOf(seq)
		if i < 0 || !strings.HasSuffix(msgs[i].Text(), s.stored[seq-1]) {
			t.Errorf("the store's message %d is %q; the conversation's IndexOf(%d) = %d", seq, s.stored[seq-1], seq, i)
		}
	}
}
