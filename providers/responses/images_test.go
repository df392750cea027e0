package responses

import (
	"strings"
	"testing"

	"github.com/agent-dev/agent/internal/scriptedresponses"
	"github.com/agent-dev/agent/providers"
)

// A model that takes no images (Config.Images says no) gets each image's description as text, in a user message and
// in a tool's output, and no input_image part at all.
func TestImagesAreDescribedToAModelThatTakesNone(t *testing.T) {
	srv := scriptedresponses.New(t, scriptedresponses.Text("ok"))
	img := providers.Image{MediaType: "image/jpeg", Data: []byte{0xff, 0xd8}}
	req := providers.Request{Model: "text-only", Messages: []providers.Message{
		{Role: providers.RoleUser, Parts: []providers.Part{providers.Text{Text: "look"}, img}},
		{Role: providers.RoleAssistant, Parts: []providers.Part{providers.ToolCall{ID: "c1", Name: "screenshot", Arguments: "{}"}}},
		{Role: providers.RoleTool, Parts: []providers.Part{providers.ToolResult{CallID: "c1", Name: "screenshot", Content: "the screen",
			Images: []providers.Image{img}}}},
	}}
	c := newTestClient(srv, Config{Images: func(string) bool { return false }})
	if _, err, _ := collect(t, c, req); err != nil {
		t.Fatal(err)
	}
	in := srv.Requests()[0].Params.Input
	user, out := string(in[0].Content), string(in[2].Output)
	if strings.Contains(user+out, "input_image") || strings.Contains(user+out, "base64") {
		t.Errorf("an image was sent to a model that takes none:\nuser %s\noutput %s", user, out)
	}
	if !strings.Contains(user, img.Describe()) || !strings.Contains(out, "the screen") || !strings.Contains(out, img.Describe()) {
		t.Errorf("the images' descriptions are missing:\nuser %s\noutput %s", user, out)
	}
}
