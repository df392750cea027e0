package media

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"
)

func pngOf(w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for x := range w {
		img.Set(x, x%h, color.RGBA{R: uint8(x), A: 255})
	}
	var buf bytes.Buffer
	png.Encode(&buf, img)
	return buf.Bytes()
}

func TestFit(t *testing.T) {
	small := pngOf(40, 30)
	got, err := Fit(small, Anthropic)
	if err != nil || !bytes.Equal(got.Data, small) || got.Scaled() || got.MediaType != "image/png" {
		t.Errorf("a small PNG changed: %v %+v", err, got.Note())
	}
	wide := pngOf(2000, 500)
	got, err = Fit(wide, Anthropic)
	if err != nil || got.Width != 1568 || got.Height != 392 || got.MediaType != "image/png" || !got.Scaled() {
		t.Fatalf("a wide PNG: %v %dx%d %s", err, got.Width, got.Height, got.MediaType)
	}
	if cfg, err := png.DecodeConfig(bytes.NewReader(got.Data)); err != nil || cfg.Width != 1568 {
		t.Errorf("the scaled PNG does not decode as 1568 wide: %v %v", cfg, err)
	}
	if note := got.Note(); note != "image/png, 2000x500, "+Size(len(wide))+"; sent scaled down to 1568x392, "+Size(len(got.Data))+" image/png" {
		t.Errorf("note = %q", note)
	}
	var jp bytes.Buffer
	jpeg.Encode(&jp, image.NewGray(image.Rect(0, 0, 2200, 1000)), nil)
	if got, err = Fit(jp.Bytes(), OpenAI); err != nil || got.Width != 2048 || got.MediaType != "image/jpeg" {
		t.Errorf("a JPEG for OpenAI: %v %dx%d %s", err, got.Width, got.Height, got.MediaType)
	}
	if got, err = Fit(pngOf(300, 300), Limit{MaxEdge: 300, MaxBytes: 2000}); err != nil || len(got.Data) > 2000 {
		t.Errorf("over MaxBytes: %v, %d bytes", err, len(got.Data))
	}
	if _, err := Fit([]byte("hello"), Default); !errors.Is(err, ErrNotImage) {
		t.Errorf("text: %v", err)
	}
	// A PNG header claiming 100000 x 100000 pixels is refused before
	// anything is allocated for its pixels.
	bomb := pngOf(1, 1)
	copy(bomb[16:24], []byte{0, 1, 0x86, 0xa0, 0, 1, 0x86, 0xa0})
	if _, err := Fit(bomb, Default); err == nil {
		t.Error("an enormous image was decoded")
	}
}

func TestSniffAndPaths(t *testing.T) {
	for in, want := range map[string]string{"\x89PNG\r\n\x1a\n...": "image/png", "\xff\xd8\xff\xe0": "image/jpeg", "GIF89a..": "image/gif", "RIFF\x00\x00\x00\x00WEBPVP8 ": "image/webp"} {
		if got, ok := Sniff([]byte(in)); !ok || got != want {
			t.Errorf("Sniff(%q) = %q", in, got)
		}
	}
	if !IsImagePath("shots/Screen.PNG") || IsImagePath("main.go") {
		t.Error("IsImagePath")
	}
}

// pngHeader is the start of a PNG (signature and IHDR) claiming w x h
// pixels of bit depth depth and colour type ctype: what DecodeConfig
// reads, and nothing of the pixels.
func pngHeader(w, h uint32, depth, ctype byte) []byte {
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = depth, ctype
	chunk := append([]byte("IHDR"), ihdr...)
	out := append([]byte("\x89PNG\r\n\x1a\n"), 0, 0, 0, 13)
	out = append(out, chunk...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(chunk))
}

// A 16-bit image under the pixel cap would take 8 bytes a pixel decoded:
// it is refused from its header, before any decoding (issue 42: six such
// images at once took the process to 3 GiB); an 8-bit one of the same
// size would pass the byte cap.
func TestFitRefusesWhatWouldDecodeTooLarge(t *testing.T) {
	_, err := Fit(pngHeader(6000, 6000, 16, 6), Limit{MaxEdge: 1568, MaxBytes: 5 << 20})
	if err == nil || !strings.Contains(err.Error(), "8 bytes a pixel") {
		t.Fatalf("a 36-megapixel 16-bit PNG: %v", err)
	}
	if n := 6000 * 6000 * bytesPerPixel(color.NRGBAModel); n > MaxDecodedBytes {
		t.Fatalf("an 8-bit image of the same size would be refused too (%d bytes): the test shows nothing", n)
	}
}
