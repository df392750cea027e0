package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// A prompt of more than 10 MiB (a large pasted image) fails with an error
// answer to its own id; the connection and the session go on.
func TestOverlongPromptFailsAloneTheConnectionGoesOn(t *testing.T) {
	p := startServe(t, oneSessionBackend{&blockingSession{turns: 1}})
	p.send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{"protocolVersion": 1}})
	p.until(responseTo(1))
	p.send(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": map[string]any{"cwd": "/tmp", "mcpServers": []any{}}})
	p.until(responseTo(2))
	big, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 3, "method": "session/prompt",
		"params": map[string]any{"sessionId": "s", "prompt": []any{map[string]any{"type": "text", "text": strings.Repeat("a", 11<<20)}}}})
	go func() { _, _ = p.w.Write(append(big, '\n')) }() // a reader that gave up would block it
	if r := p.until(responseTo(3)); r["error"] == nil || !strings.Contains(toJSON(r), "10 MiB") {
		t.Errorf("the overlong prompt answered %v, want an error naming the limit", r)
	}
	p.send(map[string]any{"jsonrpc": "2.0", "id": 4, "method": "session/prompt",
		"params": map[string]any{"sessionId": "s", "prompt": []any{map[string]any{"type": "text", "text": "short"}}}})
	if r, _ := p.until(responseTo(4))["result"].(map[string]any); r["stopReason"] != "end_turn" {
		t.Errorf("the next prompt answered %v", p.got[len(p.got)-1])
	}
}

// An overlong answer of the client (fs/read_text_file of a huge file)
// becomes an error answer to the same id; lines within the limit pass
// unchanged, a partial last line included.
func TestLineGuardReplacesOnlyOverlongLines(t *testing.T) {
	big := `{"jsonrpc":"2.0","id":7,"result":{"content":"` + strings.Repeat("x", 11<<20) + `"}}`
	in := "{\"a\":1}\n" + big + "\n" + `{"jsonrpc":"2.0","method":"n","params":{"t":"` + strings.Repeat("y", 11<<20) + "\"}}\n{\"b\":2}"
	var log bytes.Buffer
	out, err := io.ReadAll(newLineGuard(strings.NewReader(in), &log))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(out), "\n")
	if len(lines) != 3 || lines[0] != `{"a":1}` || lines[2] != `{"b":2}` {
		t.Fatalf("lines %q", string(out[:min(len(out), 500)]))
	}
	var m struct {
		ID    int `json:"id"`
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(lines[1]), &m); err != nil || m.ID != 7 || !strings.Contains(m.Error.Message, "10 MiB") {
		t.Errorf("the overlong answer became %q (%v)", lines[1], err)
	}
	if strings.Count(log.String(), "more than the 10 MiB") != 2 {
		t.Errorf("log %q", log.String())
	}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
	}
	if sc.Err() != nil {
		t.Error(sc.Err())
	}
}
