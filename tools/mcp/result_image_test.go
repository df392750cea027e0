package mcp

import (
	"bytes"
	"image"
	"image/png"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// An MCP server's screenshot goes to the model as a picture, scaled to
// media.Default, after a line that names it; bytes that are no image the
// agent reads are described.
func TestServerImagesBecomePictures(t *testing.T) {
	var shot bytes.Buffer
	png.Encode(&shot, image.NewGray(image.Rect(0, 0, 3000, 1000)))
	res := convert(&sdk.CallToolResult{Content: []sdk.Content{
		&sdk.TextContent{Text: "the page"},
		&sdk.ImageContent{MIMEType: "image/png", Data: shot.Bytes()},
		&sdk.ImageContent{MIMEType: "image/png", Data: []byte("12345")},
	}})
	if len(res.Images) != 1 || res.Images[0].MediaType != "image/png" {
		t.Fatalf("images %d", len(res.Images))
	}
	if cfg, err := png.DecodeConfig(bytes.NewReader(res.Images[0].Data)); err != nil || cfg.Width != 1568 {
		t.Errorf("sent %v %v, want 1568 wide", cfg, err)
	}
	for _, want := range []string{"the page", "[image 1: image/png, 3000x1000", "sent scaled down to 1568x522", "[image image/png, 5 bytes, not shown]"} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("content lacks %q: %q", want, res.Content)
		}
	}
}
