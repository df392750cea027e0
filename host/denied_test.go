package host

import (
	"slices"
	"testing"
)

// The SDK's tools option (Rules.Only) denies the built-in tools it does not
// name; MCP servers' tools stay.
func TestToolsOutsideTheSDKsListAreDenied(t *testing.T) {
	got := toolsOutside([]string{"bash", "read_file", "grep", "write_file", "mcp__fs__read"}, []string{"read_file", "grep"})
	if !slices.Equal(got, []string{"bash", "write_file"}) {
		t.Errorf("denied %v", got)
	}
}
