package conversation_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agent-dev/agent/conversation"
	"github.com/agent-dev/agent/providers"
)

// A deferred tool weighs its name: its definition is read only where a
// result loads it.
func TestSizeOfCountsADeferredToolByItsName(t *testing.T) {
	def := providers.ToolDefinition{Name: "grep", Description: strings.Repeat("d", 1000), Parameters: json.RawMessage(`{"type":"object"}`)}
	full := conversation.SizeOf(providers.Request{Tools: []providers.ToolDefinition{def}}).Tools
	def.Deferred = true
	deferred := conversation.SizeOf(providers.Request{Tools: []providers.ToolDefinition{def}}).Tools
	if full != 4+1000+17 || deferred != 4 {
		t.Errorf("tools weigh %d bytes in full and %d deferred, want 1,021 and 4", full, deferred)
	}
}
