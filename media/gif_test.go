package media

import (
	"bytes"
	"image"
	"image/color"
	"image/gif"
	"testing"
)

// A large GIF is read, its size known, and scaled down to a PNG (its first
// frame).
func TestFitScalesAGIF(t *testing.T) {
	img := image.NewPaletted(image.Rect(0, 0, 3000, 1000), color.Palette{color.Black, color.White})
	var buf bytes.Buffer
	if err := gif.Encode(&buf, img, nil); err != nil {
		t.Fatal(err)
	}
	out, err := Fit(buf.Bytes(), Anthropic)
	if err != nil {
		t.Fatal(err)
	}
	if out.OrigType != "image/gif" || out.OrigWidth != 3000 || out.OrigHeight != 1000 || out.MediaType != "image/png" || out.Width != 1568 {
		t.Errorf("GIF fitted as %s %dx%d from %s %dx%d", out.MediaType, out.Width, out.Height, out.OrigType, out.OrigWidth, out.OrigHeight)
	}
}
