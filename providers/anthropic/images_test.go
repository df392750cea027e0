package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/agent-dev/agent/internal/scriptedanthropic"
	"github.com/agent-dev/agent/providers"
)

// canonical re-encodes JSON with sorted keys and no spaces, so that two
// texts of the same JSON compare byte for byte.
func canonical(t *testing.T, raw []byte) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	out, _ := json.Marshal(v)
	return out
}

var png1x1 = providers.Image{MediaType: "image/png", Data: []byte("\x89PNG\r\n\x1a\nfake")}

// The messages of a request with a pasted image and a tool result with an
// image, against the Messages API's documented shapes (docs.anthropic.com,
// "Vision": an image content block with a base64 source; "Tool use": a
// tool_result whose content is text and image blocks). The cache
// breakpoints are the adapter's usual two, on the last blocks.
func TestImagesAreImageBlocks(t *testing.T) {
	srv := scriptedanthropic.New(t, scriptedanthropic.Answer(scriptedanthropic.Text("ok")), scriptedanthropic.Answer(scriptedanthropic.Text("ok")))
	c, _ := newClient(t, srv, Config{})
	req := providers.Request{
		Model: "claude-sonnet-4-5",
		Messages: []providers.Message{
			{Role: providers.RoleUser, Parts: []providers.Part{providers.Text{Text: "What is wrong here?"}, png1x1}},
			{Role: providers.RoleAssistant, Parts: []providers.Part{providers.ToolCall{ID: "toolu_1", Name: "read_file", Arguments: `{"path":"shot.png"}`}}},
			{Role: providers.RoleTool, Parts: []providers.Part{providers.ToolResult{CallID: "toolu_1", Name: "read_file",
				Content: "Image shot.png", Images: []providers.Image{png1x1}}}},
		},
		Tools: []providers.ToolDefinition{{Name: "read_file", Description: "Read.", Parameters: json.RawMessage(`{"type":"object"}`)}},
	}
	if _, err := c.Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	var body struct{ Messages json.RawMessage }
	json.Unmarshal(srv.Requests()[0].Body, &body)
	want := `[
 {"role":"user","content":[{"type":"text","text":"What is wrong here?"},
  {"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgpmYWtl"},"cache_control":{"type":"ephemeral"}}]},
 {"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"read_file","input":{"path":"shot.png"}}]},
 {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","cache_control":{"type":"ephemeral"},"content":[
  {"type":"text","text":"Image shot.png"},
  {"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgpmYWtl"}}]}]}]`
	if got := canonical(t, body.Messages); !bytes.Equal(got, canonical(t, []byte(want))) {
		t.Errorf("messages:\n%s\nwant\n%s", got, canonical(t, []byte(want)))
	}

	// A model that takes no images gets their descriptions.
	c, _ = newClient(t, srv, Config{Images: func(string) bool { return false }})
	if _, err := c.Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	if b := srv.Requests()[1].Body; bytes.Contains(b, []byte(`"image"`)) || !bytes.Contains(b, []byte("[image image/png, 12 bytes, not shown]")) {
		t.Errorf("a model without images got image blocks: %s", b)
	}
}
