package cmd

import (
	"strings"
	"testing"
)

func TestProtocolHint(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		complete       bool
	}{
		{"ACP initialize", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}` + "\n", "agent acp", true},
		{"JSON-RPC without newline yet", `{"jsonrpc":"2.0","id":0,"method":"initialize"}`, "agent acp", true},
		{"SDK control request", `{"type":"control_request","request_id":"1","request":{"subtype":"initialize"}}` + "\n", "--input-format stream-json", true},
		{"a prompt", "fix the build\n", "", true},
		{"JSON data that is no protocol", `{"name":"x"}` + "\n", "", true},
		{"a brace that is no JSON", "{ this is a prompt }\nmore", "", true},
		{"half a line", `{"jsonrpc":"2.0","id":0,"meth`, "", false},
		{"nothing yet", "  ", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hint, complete := protocolHint([]byte(tc.in))
			if complete != tc.complete || (tc.want == "") != (hint == "") || !strings.Contains(hint, tc.want) {
				t.Errorf("protocolHint(%q) = %q, %v; want it to name %q, complete %v", tc.in, hint, complete, tc.want, tc.complete)
			}
		})
	}
}
