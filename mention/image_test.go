package mention

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"strings"
	"testing"
)

// @shot.png attaches the picture itself, beside read_file's line about it.
func TestMentionedImageIsAttachedAsAPicture(t *testing.T) {
	var buf bytes.Buffer
	png.Encode(&buf, image.NewGray(image.Rect(0, 0, 8, 6)))
	m, _ := tree(t, map[string]string{"shot.png": buf.String()})
	text, atts := m.Expand(context.Background(), "", "what is wrong in @shot.png?")
	if len(atts) != 1 || len(atts[0].Images) != 1 || !bytes.Equal(atts[0].Images[0].Data, buf.Bytes()) || atts[0].Images[0].MediaType != "image/png" {
		t.Fatalf("attachments %+v", atts)
	}
	if !strings.Contains(text, `<attached path="shot.png">`) || !strings.Contains(text, "Image shot.png: image/png, 8x6") {
		t.Errorf("text %q", text)
	}
}
