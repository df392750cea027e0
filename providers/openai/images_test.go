package openai_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/agent-dev/agent/internal/scripted"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/openai"
)

func canonical(t *testing.T, raw []byte) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	out, _ := json.Marshal(v)
	return out
}

// The messages of a request with a pasted image and a tool result with an
// image, against chat completions' documented shapes
// (platform.openai.com, "Images and vision": a user message whose content
// is text and image_url parts, the URL a base64 data URL). A tool
// message's content is text only, so the result's image follows in a user
// message naming the call.
func TestImagesAreImageURLParts(t *testing.T) {
	srv := scripted.New(t, scripted.Text("ok"), scripted.Text("ok"))
	png := providers.Image{MediaType: "image/png", Data: []byte("\x89PNG\r\n\x1a\nfake")}
	req := providers.Request{Model: "gpt-4.1", Messages: []providers.Message{
		{Role: providers.RoleUser, Parts: []providers.Part{providers.Text{Text: "What is wrong here?"}, png}},
		{Role: providers.RoleAssistant, Parts: []providers.Part{providers.ToolCall{ID: "call_1", Name: "read_file", Arguments: `{"path":"shot.png"}`}}},
		{Role: providers.RoleTool, Parts: []providers.Part{providers.ToolResult{CallID: "call_1", Name: "read_file", Content: "Image shot.png", Images: []providers.Image{png}}}},
	}}
	c := openai.New(openai.Config{BaseURL: srv.URL(), IdleTimeout: 2 * time.Second})
	if _, err := c.Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	var body struct{ Messages json.RawMessage }
	json.Unmarshal(srv.Requests()[0].Body, &body)
	url := "data:image/png;base64,iVBORw0KGgpmYWtl"
	want := `[
 {"role":"user","content":[{"type":"text","text":"What is wrong here?"},{"type":"image_url","image_url":{"url":"` + url + `"}}]},
 {"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"shot.png\"}"}}]},
 {"role":"tool","content":"Image shot.png","tool_call_id":"call_1"},
 {"role":"user","content":[{"type":"text","text":"The images of the result of tool call call_1 (read_file):"},{"type":"image_url","image_url":{"url":"` + url + `"}}]}]`
	if got := canonical(t, body.Messages); !bytes.Equal(got, canonical(t, []byte(want))) {
		t.Errorf("messages:\n%s\nwant\n%s", got, canonical(t, []byte(want)))
	}

	// A model that takes no images gets their descriptions.
	c = openai.New(openai.Config{BaseURL: srv.URL(), IdleTimeout: 2 * time.Second, Images: func(string) bool { return false }})
	if _, err := c.Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	if b := srv.Requests()[1].Body; bytes.Contains(b, []byte("image_url")) || !bytes.Contains(b, []byte("[image image/png, 12 bytes, not shown]")) {
		t.Errorf("a model without images got image parts: %s", b)
	}
}
