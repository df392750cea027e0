package sessions_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/agent-dev/agent/conversation"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sessions"
)

// A conversation recorded through the store loads back as the next request
// needs it: after a compaction, the summary and the kept messages only;
// the picks; the usage. show and export still have every message.
func TestConversationRestartsFromTheLatestCompaction(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	ss := create(t, s, t.TempDir(), "long")
	conv := conversation.New(ss.SystemPrompt, s.Recorder(ss.ID))
	call := providers.ToolCall{ID: "g1", Name: "grep", Arguments: `{"pattern":"x"}`}
	for _, m := range []providers.Message{
		userMsg("first question"),
		{Role: providers.RoleAssistant, Parts: []providers.Part{call}},
		{Role: providers.RoleTool, Parts: []providers.Part{providers.ToolResult{CallID: "g1", Name: "grep", Content: "a.go:1:x"}}},
		{Role: providers.RoleAssistant, Parts: []providers.Part{providers.Text{Text: "first answer"}}},
		userMsg("second question"),
	} {
		if err := conv.Append(ctx, m, providers.Usage{InputTokens: 100, CachedInputTokens: 60}); err != nil {
			t.Fatal(err)
		}
	}
	conv.Pick("read_file", "grep")
	if err := conv.SavePicks(ctx); err != nil {
		t.Fatal(err)
	}
	// Keep the newest answer and the prompt after it (messages 4 and 5).
	cp := conversation.Compaction{Summary: "Goal: answer two questions.", BeforeTokens: 900, AfterTokens: 300,
		Usage: providers.Usage{InputTokens: 90, OutputTokens: 10}}
	if err := conv.Compact(ctx, 3, cp); err != nil {
		t.Fatal(err)
	}
	if err := conv.Append(ctx, providers.Message{Role: providers.RoleAssistant, Parts: []providers.Part{providers.Text{Text: "second answer"}}}, providers.Usage{}); err != nil {
		t.Fatal(err)
	}

	st, err := s.Conversation(ctx, ss.ID)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, m := range st.Messages {
		texts = append(texts, string(m.Role)+":"+m.Text())
	}
	want := []string{"user:" + conversation.SummaryPrefix + "Goal: answer two questions.", "assistant:first answer",
		"user:second question", "assistant:second answer"}
	if !slices.Equal(texts, want) {
		t.Errorf("loaded %q\nwant %q", texts, want)
	}
	if !slices.Equal(st.Seqs, []int{0, 4, 5, 6}) || st.NextSeq != 7 {
		t.Errorf("seqs %v, next %d", st.Seqs, st.NextSeq)
	}
	if !slices.Equal(st.Picked, []string{"grep", "read_file"}) || st.Compactions != 1 || st.System != "be brief" {
		t.Errorf("picked %v, compactions %d, system %q", st.Picked, st.Compactions, st.System)
	}
	if st.Usage.InputTokens != 590 || st.Usage.OutputTokens != 10 || st.Usage.CachedInputTokens != 300 {
		t.Errorf("usage %+v", st.Usage)
	}
	recs, err := s.MessageRecords(ctx, ss.ID)
	if err != nil || len(recs) != 6 {
		t.Errorf("show and export must keep all 6 messages: %d, %v", len(recs), err)
	}
	cs, err := s.Compactions(ctx, ss.ID)
	if err != nil || len(cs) != 1 || cs[0].FirstSeq != 4 || cs[0].BeforeTokens != 900 || cs[0].AfterTokens != 300 {
		t.Errorf("compactions %+v, %v", cs, err)
	}

	// A restored conversation goes on where it stopped.
	again := conversation.Restore(st, s.Recorder(ss.ID))
	if err := again.Append(ctx, userMsg("third question"), providers.Usage{}); err != nil {
		t.Fatal(err)
	}
	if err := again.Compact(ctx, 4, conversation.Compaction{Summary: "Goal: three questions."}); err != nil {
		t.Fatal(err)
	}
	st, err = s.Conversation(ctx, ss.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Messages) != 2 || st.Messages[1].Text() != "third question" || st.Compactions != 2 {
		t.Errorf("after the second compaction: %+v", st)
	}
}

func TestCompactingAcrossAToolResultIsRefused(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	ss := create(t, s, t.TempDir(), "")
	conv := conversation.New("", s.Recorder(ss.ID))
	for _, m := range []providers.Message{
		userMsg("q"),
		{Role: providers.RoleAssistant, Parts: []providers.Part{providers.ToolCall{ID: "c", Name: "grep", Arguments: `{}`}}},
		{Role: providers.RoleTool, Parts: []providers.Part{providers.ToolResult{CallID: "c", Name: "grep"}}},
	} {
		if err := conv.Append(ctx, m, providers.Usage{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := conv.Compact(ctx, 2, conversation.Compaction{Summary: "s"}); err == nil || !strings.Contains(err.Error(), "tool results") {
		t.Errorf("Compact across a result: %v", err)
	}
	if cs, _ := s.Compactions(ctx, ss.ID); len(cs) != 0 {
		t.Errorf("a refused compaction was recorded")
	}
}

func TestConversationOfAnUnknownSession(t *testing.T) {
	s := openStore(t)
	if _, err := s.Conversation(context.Background(), "nope"); !errors.Is(err, sessions.ErrNotFound) {
		t.Errorf("err = %v", err)
	}
	if err := s.Recorder("nope").SavePicks(context.Background(), []string{"grep"}); !errors.Is(err, sessions.ErrNotFound) {
		t.Errorf("SavePicks err = %v", err)
	}
}

// Cache-write tokens and the usage of requests that left no message count
// in the session and load back with its conversation.
func TestUsageWithoutAMessageAndCacheWritesLoadBack(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	ss := create(t, s, t.TempDir(), "")
	conv := conversation.New("", s.Recorder(ss.ID))
	if err := conv.Append(ctx, userMsg("q"), providers.Usage{InputTokens: 100, CacheWriteTokens: 800}); err != nil {
		t.Fatal(err)
	}
	if err := conv.AddUsage(ctx, providers.Usage{InputTokens: 50, OutputTokens: 5, CacheWriteTokens: 400}); err != nil {
		t.Fatal(err)
	}
	if err := conv.Append(ctx, providers.Message{Role: providers.RoleAssistant, Parts: []providers.Part{providers.Text{Text: "a"}}}, providers.Usage{}); err != nil {
		t.Fatal(err)
	}
	cp := conversation.Compaction{Summary: "s", Usage: providers.Usage{InputTokens: 30, CacheWriteTokens: 400}}
	if err := conv.Compact(ctx, 1, cp); err != nil {
		t.Fatal(err)
	}
	st, err := s.Conversation(ctx, ss.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := providers.Usage{InputTokens: 180, OutputTokens: 5, CacheWriteTokens: 1600}
	if st.Usage != want || conv.Usage() != want {
		t.Errorf("loaded usage %+v, in memory %+v; want %+v", st.Usage, conv.Usage(), want)
	}
}
