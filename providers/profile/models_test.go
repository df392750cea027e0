package profile

import (
	"context"
	"slices"
	"testing"

	"github.com/agent-dev/agent/internal/scripted"
	"github.com/agent-dev/agent/internal/scriptedanthropic"
)

// The scripted servers list models as the real APIs do: both adapters
// read their lists (what /model without a name shows).
func TestScriptedServersListModels(t *testing.T) {
	want := []string{"model-a", "model-b"}
	oa := scripted.NewWithOptions(t, scripted.Options{Models: want})
	an := scriptedanthropic.NewWithOptions(t, scriptedanthropic.Options{Models: want})
	for _, s := range []Settings{
		{Provider: "openai", BaseURL: oa.URL(), APIKey: "k"},
		{Provider: Anthropic, BaseURL: an.URL(), APIKey: "k"},
	} {
		got, err := New(s, -1, nil).Models(context.Background())
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%s: Models = %q, %v; want %q", s.Provider, got, err, want)
		}
	}
	if n := len(oa.Requests()) + len(an.Requests()); n != 0 {
		t.Errorf("%d listing requests were recorded; the log is for chat requests", n)
	}
}
