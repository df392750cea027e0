package cmd

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sessions"
)

func TestSessionsStatsTokens(t *testing.T) {
	f := newSessionsFixture(t)
	ctx := context.Background()
	s, err := sessions.Open(ctx, f.db)
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Create(ctx, sessions.NewSession{Dir: f.dirA, Model: "claude-sonnet-4-5", Title: "Cached"})
	if err != nil {
		t.Fatal(err)
	}
	rec := s.Recorder(c.ID)
	for _, u := range []providers.Usage{
		{InputTokens: 10_000, CacheWriteTokens: 9_000, OutputTokens: 100},
		{InputTokens: 11_000, CachedInputTokens: 9_000, CacheWriteTokens: 1_500, OutputTokens: 200},
	} {
		if err := rec.AppendMessage(ctx, providers.Message{Role: providers.RoleAssistant, Parts: []providers.Part{providers.Text{Text: "x"}}}, u); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()

	var got struct {
		Sessions []sessionTokensJSON `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, f.db, "stats", "-C", f.dirA, "--json")), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Sessions) != 2 {
		t.Fatalf("sessions = %+v", got.Sessions)
	}
	cached, plain := got.Sessions[0], got.Sessions[1]
	wantCost := (1_500*3 + 9_000*0.30 + 10_500*3.75 + 300*15) / 1e6
	if cached.ID != c.ID || cached.Input != 21_000 || cached.Cached != 9_000 || cached.CacheWrite != 10_500 ||
		math.Abs(cached.CacheHitRate-9.0/21) > 1e-9 || cached.CostUSD == nil || math.Abs(*cached.CostUSD-wantCost) > 1e-9 {
		t.Errorf("cached session = %+v (cost %v, want %v)", cached, cached.CostUSD, wantCost)
	}
	if plain.ID != f.a || plain.Input != 250 || plain.CostUSD != nil {
		t.Errorf("a session of an unknown model = %+v", plain)
	}

	out := mustRun(t, f.db, "stats", "-C", f.dirA)
	_, table, _ := strings.Cut(out, "\n\n")
	lines := strings.Split(strings.TrimSpace(table), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], "HIT RATE") ||
		strings.Join(strings.Fields(lines[1]), " ") != c.ID+" claude-sonnet-4-5 21000 9000 10500 42.9% 300 $0.0511" ||
		!strings.HasSuffix(lines[2], " -") {
		t.Errorf("sessions table:\n%s", table)
	}
}
