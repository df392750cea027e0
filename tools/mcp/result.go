package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-dev/agent/media"
	"github.com/agent-dev/agent/tools"
)

// MaxResultBytes bounds the text of a result the model reads; the rest is
// cut with a note of how much.
const MaxResultBytes = 64 << 10

// convert turns a server's answer into a Result: text parts and the
// structured content become the text; images, audio and resources are
// described by type and size, except images the agent reads (PNG, JPEG,
// GIF, WebP), which go to the model as pictures scaled to media.Default
// after a line that names them (a model that takes no images gets their
// description); isError makes an error result.
func convert(res *sdk.CallToolResult) tools.Result {
	var parts []string
	var imgs []tools.Image
	images := 0
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
		case *sdk.ImageContent:
			images++
			if img, err := media.Fit(c.Data, media.Default); err == nil {
				imgs = append(imgs, tools.Image{MediaType: img.MediaType, Data: img.Data})
				parts = append(parts, fmt.Sprintf("[image %d: %s]", len(imgs), img.Note()))
				continue
			}
			parts = append(parts, fmt.Sprintf("[image %s, %d bytes, not shown]", c.MIMEType, len(c.Data)))
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio %s, %d bytes, not shown]", c.MIMEType, len(c.Data)))
		case *sdk.ResourceLink:
			size := ""
			if c.Size != nil {
				size = fmt.Sprintf(", %d bytes", *c.Size)
			}
			parts = append(parts, fmt.Sprintf("[resource link %s (%s%s)]", c.URI, c.MIMEType, size))
		case *sdk.EmbeddedResource:
			parts = append(parts, describeResource(c.Resource))
		default:
			parts = append(parts, fmt.Sprintf("[%T content, not shown]", c))
		}
	}
	if res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil && !containsText(parts, string(b)) {
			parts = append(parts, string(b))
		}
	}
	text := strings.Join(parts, "\n")
	out := tools.Result{Content: capText(text), Images: imgs, IsError: res.IsError, Meta: map[string]any{"bytes": len(text)}}
	if images > 0 {
		out.Meta["images"] = images
	}
	if out.Content == "" && out.IsError {
		out.Content = "the tool failed without saying why"
	}
	return out
}

// containsText reports whether a text part already carries s (servers
// often send their structured content as text too).
func containsText(parts []string, s string) bool {
	for _, p := range parts {
		if strings.TrimSpace(p) == s {
			return true
		}
		var a, b any
		if json.Unmarshal([]byte(p), &a) == nil && json.Unmarshal([]byte(s), &b) == nil {
			ja, _ := json.Marshal(a)
			jb, _ := json.Marshal(b)
			if string(ja) == string(jb) {
				return true
			}
		}
	}
	return false
}

func describeResource(r *sdk.ResourceContents) string {
	if r == nil {
		return "[empty resource]"
	}
	if r.Text != "" {
		return fmt.Sprintf("[resource %s (%s)]\n%s", r.URI, r.MIMEType, r.Text)
	}
	return fmt.Sprintf("[resource %s (%s), %d bytes, not shown]", r.URI, r.MIMEType, len(r.Blob))
}

// capText cuts text longer than MaxResultBytes at a line or rune
// boundary and says how much was cut.
func capText(text string) string {
	if len(text) <= MaxResultBytes {
		return text
	}
	head := text[:MaxResultBytes]
	if i := strings.LastIndexByte(head, '\n'); i > MaxResultBytes/2 {
		head = head[:i+1]
	}
	for len(head) > 0 && !isRuneStart(text[len(head)]) {
		head = head[:len(head)-1]
	}
	cut := text[len(head):]
	return fmt.Sprintf("%s\n[... %d bytes (%d lines) cut from the end of the result ...]", strings.TrimRight(head, "\n"), len(cut), strings.Count(cut, "\n")+1)
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
