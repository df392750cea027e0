package fs

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"strings"
	"testing"

	"github.com/agent-dev/agent/media"
	"github.com/agent-dev/agent/tools"
)

func pngBytes(w, h int) string {
	var buf bytes.Buffer
	png.Encode(&buf, image.NewGray(image.Rect(0, 0, w, h)))
	return buf.String()
}

// read_file on an image returns the picture, scaled down to the limit,
// with a line saying what it is and what was sent; the read is recorded,
// so the file may then be overwritten.
func TestReadFileReturnsImages(t *testing.T) {
	small, big := pngBytes(30, 20), pngBytes(900, 300)
	root, _ := tree(t, map[string]string{"shot.png": small, "docs/big.png": big, "fake.png": "\x89PNG\r\n\x1a\nbroken"})
	s := NewSessions(nil)
	var rf tools.Tool
	for _, tl := range ToolsWith(root, Options{Sessions: s, ImageLimit: media.Limit{MaxEdge: 600, MaxBytes: 1 << 20}}) {
		if tl.Definition().Name == "read_file" {
			rf = tl
		}
	}
	run := func(path string) tools.Result {
		res, err := rf.Run(context.Background(), tools.Call{Session: "s1", Args: []byte(`{"path":"` + path + `"}`)})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := run("shot.png")
	if res.IsError || len(res.Images) != 1 || res.Images[0].Data == nil || string(res.Images[0].Data) != small ||
		!strings.HasPrefix(res.Content, "Image shot.png: image/png, 30x20, ") {
		t.Errorf("small image: %v %q %d images", res.IsError, res.Content, len(res.Images))
	}
	if _, ok := s.Tracker("s1").lookup("shot.png"); !ok {
		t.Error("the read of the image was not recorded")
	}
	res = run("docs/big.png")
	if len(res.Images) != 1 || !strings.Contains(res.Content, "900x300") || !strings.Contains(res.Content, "sent scaled down to 600x200") {
		t.Errorf("big image: %q", res.Content)
	}
	if cfg, err := png.DecodeConfig(bytes.NewReader(res.Images[0].Data)); err != nil || cfg.Width != 600 {
		t.Errorf("the sent image is %v, %v", cfg, err)
	}
	if res = run("fake.png"); !res.IsError || len(res.Images) != 0 {
		t.Errorf("a broken PNG: %v %q", res.IsError, res.Content)
	}
}
