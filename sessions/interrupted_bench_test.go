package sessions_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agent-dev/agent/sessions"
)

// BenchmarkMarkInterrupted measures what every start asks the store (the
// sessions whose process is gone) in a database of 1,000 finished sessions
// with a system prompt of 6 KB each:
//
//	go test -run '^$' -bench MarkInterrupted ./sessions/
func BenchmarkMarkInterrupted(b *testing.B) {
	ctx := context.Background()
	s := openStore(b)
	prompt := strings.Repeat("You are a careful coding agent. ", 200)
	for range 1000 {
		ss, err := s.Create(ctx, sessions.NewSession{Dir: "/w", Provider: "p", Model: "m", SystemPrompt: prompt})
		if err != nil {
			b.Fatal(err)
		}
		if err := s.SetStatus(ctx, ss.ID, sessions.StatusCompleted); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		if _, err := s.MarkInterrupted(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
