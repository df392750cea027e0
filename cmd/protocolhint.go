package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// protocolHint looks at the first line of standard input as it arrives:
// when it is a JSON-RPC 2.0 object (an editor speaking the Agent Client
// Protocol, or another protocol client) or one of the Claude Agent SDK's
// messages, it returns what to tell the person instead of sending it to
// the model; "" otherwise, and while the first line is incomplete and
// could still be either.
func protocolHint(data []byte) (hint string, complete bool) {
	data = bytes.TrimLeft(data, " \t\r\n")
	if len(data) == 0 {
		return "", false
	}
	if data[0] != '{' {
		return "", true
	}
	line, _, found := bytes.Cut(data, []byte("\n"))
	var msg struct {
		JSONRPC string `json:"jsonrpc"`
		Method  string `json:"method"`
		Type    string `json:"type"`
	}
	if err := json.Unmarshal(line, &msg); err != nil {
		return "", found // not JSON: a prompt that starts with a brace
	}
	switch {
	case msg.JSONRPC == "2.0":
		what := "a JSON-RPC message"
		if msg.Method != "" {
			what = fmt.Sprintf("a JSON-RPC %q request", msg.Method)
		}
		return fmt.Sprintf("standard input starts with %s: this looks like a protocol client, not a prompt. Editors speaking the Agent Client Protocol run `agent acp`", what), true
	case msg.Type == "control_request" || msg.Type == "user":
		return fmt.Sprintf("standard input starts with a stream-json %q message: the Claude Agent SDK's protocol needs --input-format stream-json --output-format stream-json", msg.Type), true
	}
	return "", true
}
