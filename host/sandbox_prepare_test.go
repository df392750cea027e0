package host

import (
	"context"
	"fmt"
	"testing"

	"github.com/agent-dev/agent/providers"
)

// answer is a provider whose answer streams events, in order, and ends
// with message.
type answer struct {
	events  []providers.StreamEvent
	message providers.Message
}

func (a answer) Stream(_ context.Context, _ providers.Request, onEvent func(providers.StreamEvent)) (*providers.Response, error) {
	for _, ev := range a.events {
		onEvent(ev)
	}
	return &providers.Response{Message: a.message}, nil
}

// The sandbox's set-up begins once the model starts its first tool call,
// before that event reaches the loop, and only once; an answer of text
// alone begins nothing.
func TestSandboxPreparedAtTheFirstToolCall(t *testing.T) {
	call := providers.Message{Role: providers.RoleAssistant, Parts: []providers.Part{providers.ToolCall{ID: "c1", Name: "bash", Arguments: "{}"}}}
	text := providers.TextDelta{Text: "a"}
	begin := providers.ToolCallBegin{ID: "c1", Name: "bash"}
	for _, c := range []struct {
		name     string
		answers  []answer
		want     int
		wantSeen []int // how many set-ups had begun as each event reached the loop
	}{
		{"text only", []answer{{events: []providers.StreamEvent{text, text}}, {}}, 0, []int{0, 0}},
		{"text, then a tool call", []answer{{events: []providers.StreamEvent{text, begin}, message: call}, {events: []providers.StreamEvent{begin}, message: call}}, 1, []int{0, 1, 1}},
		{"a tool call with no ToolCallBegin", []answer{{message: call}}, 1, nil},
	} {
		prepared, seen := 0, []int{}
		p := &preparingProvider{prepare: func() { prepared++ }}
		for _, a := range c.answers {
			p.Provider = a
			p.Stream(context.Background(), providers.Request{}, func(providers.StreamEvent) { seen = append(seen, prepared) })
		}
		if prepared != c.want {
			t.Errorf("%s: prepared %d times, want %d", c.name, prepared, c.want)
		}
		if c.wantSeen != nil && fmt.Sprint(seen) != fmt.Sprint(c.wantSeen) {
			t.Errorf("%s: set-ups begun as each event reached the loop %v, want %v", c.name, seen, c.wantSeen)
		}
	}
}

// A run whose calls all read files begins no set-up: only a call of a tool
// that may run a command does.
func TestSandboxNotPreparedForReadOnlyCalls(t *testing.T) {
	read := providers.Message{Role: providers.RoleAssistant, Parts: []providers.Part{providers.ToolCall{ID: "r", Name: "read_file", Arguments: "{}"}}}
	bash := providers.Message{Role: providers.RoleAssistant, Parts: []providers.Part{providers.ToolCall{ID: "b", Name: "bash", Arguments: "{}"}}}
	prepared := 0
	p := &preparingProvider{prepare: func() { prepared++ }, needs: func(tool string) bool { return tool == "bash" }}
	for _, a := range []answer{{events: []providers.StreamEvent{providers.ToolCallBegin{ID: "r", Name: "read_file"}}, message: read}, {message: read}} {
		p.Provider = a
		p.Stream(context.Background(), providers.Request{}, func(providers.StreamEvent) {})
	}
	if prepared != 0 {
		t.Fatalf("read_file calls began the sandbox's set-up %d times", prepared)
	}
	p.Provider = answer{events: []providers.StreamEvent{providers.ToolCallBegin{ID: "b", Name: "bash"}}, message: bash}
	p.Stream(context.Background(), providers.Request{}, func(providers.StreamEvent) {})
	if prepared != 1 {
		t.Errorf("a bash call began the set-up %d times, want 1", prepared)
	}
}
