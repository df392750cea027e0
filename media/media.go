// Package media prepares pictures for a model: it recognises PNG, JPEG, GIF
// and WebP by their bytes, and scales an image down to what providers take
// (golang.org/x/image's WebP decoder and scalers), re-encoding it as PNG
// or JPEG when it had to change. It imports nothing of the project, so
// tools, mentions, front-ends and MCP results all use it.
package media

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	_ "image/gif" // registers GIF with image.Decode
	"image/jpeg"
	"image/png"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/image/draw"
	_ "golang.org/x/image/webp" // registers WebP with image.Decode
)

// Limit is what a provider takes of one image.
type Limit struct {
	// MaxEdge is the longest side in pixels; a larger image is scaled
	// down to it, its aspect kept.
	MaxEdge int
	// MaxBytes is the largest encoded size; an image over it is
	// re-encoded as JPEG, smaller, until it fits.
	MaxBytes int
}

// The limits of the providers agent speaks. Anthropic's Messages API
// takes images up to 8000 px and 5 MB but scales anything whose long edge
// passes 1568 px down itself (docs.anthropic.com, "Vision"), so sending
// more costs upload time and nothing else; OpenAI's chat completions fit a
// high-detail image into 2048 px (platform.openai.com, "Images and
// vision"). 3.75 MiB keeps the base64 text under Anthropic's 5 MB.
var (
	Anthropic = Limit{MaxEdge: 1568, MaxBytes: 3_750_000}
	OpenAI    = Limit{MaxEdge: 2048, MaxBytes: 3_750_000}
	// Default is the stricter of the two, for images whose provider is
	// not known where they are made (an MCP server's).
	Default = Anthropic
)

// Image is an encoded picture ready to send, with what became of it.
type Image struct {
	// MediaType is image/png, image/jpeg, image/gif or image/webp.
	MediaType string
	// Data is the encoded image.
	Data []byte
	// Width and Height are the sent image's, in pixels.
	Width, Height int
	// OrigType, OrigWidth, OrigHeight and OrigBytes are the original's.
	OrigType                         string
	OrigWidth, OrigHeight, OrigBytes int
}

// Scaled reports whether the sent image differs from the original.
func (i Image) Scaled() bool {
	return i.Width != i.OrigWidth || i.Height != i.OrigHeight || len(i.Data) != i.OrigBytes
}

// Note says in one line what the image is and what was sent:
// "image/png, 3024x1964, 4.1 MiB; sent scaled down to 1568x1018, 612 KiB
// image/png".
func (i Image) Note() string {
	s := fmt.Sprintf("%s, %dx%d, %s", i.OrigType, i.OrigWidth, i.OrigHeight, Size(i.OrigBytes))
	if i.Scaled() {
		s += fmt.Sprintf("; sent scaled down to %dx%d, %s %s", i.Width, i.Height, Size(len(i.Data)), i.MediaType)
	}
	return s
}

// Size reads n bytes for people: "812 bytes", "14 KiB", "4.1 MiB".
func Size(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.0f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// Sniff returns the media type of data's image format, ok false when it is
// none of PNG, JPEG, GIF or WebP.
func Sniff(data []byte) (string, bool) {
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png", true
	case bytes.HasPrefix(data, []byte{0xff, 0xd8, 0xff}):
		return "image/jpeg", true
	case bytes.HasPrefix(data, []byte("GIF87a")), bytes.HasPrefix(data, []byte("GIF89a")):
		return "image/gif", true
	case len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP":
		return "image/webp", true
	}
	return "", false
}

// IsImagePath reports whether name's extension is one of an image format
// Fit reads (.png, .jpg, .jpeg, .gif, .webp), whatever the case.
func IsImagePath(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".png", ".jpg", ".jpeg", ".gif", ".webp":
		return true
	}
	return false
}

// MaxPixels bounds the images Fit decodes (width times height): a small
// file may claim to be enormous, and decoding allocates 4 bytes a pixel.
const MaxPixels = 64_000_000

// MaxDecodedBytes bounds the memory one decoded image may take (256 MiB),
// from its pixels and its colour model's bytes a pixel: a 16-bit PNG takes
// 8 bytes a pixel, twice an 8-bit one's.
const MaxDecodedBytes = 256 << 20

// decoding lets one image be decoded and scaled at a time: six calls at
// once of images just under the caps would otherwise hold six decoded
// images (issue 42: 3 GiB resident).
var decoding sync.Mutex

// bytesPerPixel is what the decoder allocates a pixel for model.
func bytesPerPixel(model color.Model) int {
	switch model {
	case color.RGBA64Model, color.NRGBA64Model:
		return 8
	case color.Gray16Model:
		return 2
	case color.GrayModel, color.AlphaModel:
		return 1
	case color.YCbCrModel:
		return 3
	}
	if _, ok := model.(color.Palette); ok {
		return 1
	}
	return 4
}

// ErrNotImage is Fit's error for data that is no image it reads.
var ErrNotImage = errors.New("not a PNG, JPEG, GIF or WebP image")

// Fit returns data as an image within lim: as it is when it already fits,
// else scaled down (longest side to MaxEdge) and re-encoded, PNG for a PNG
// or GIF (only a GIF's first frame is kept), JPEG for the rest, and as
// JPEG of lower quality and size until under MaxBytes. Errors: ErrNotImage,
// or a decoding error for a damaged file.
func Fit(data []byte, lim Limit) (Image, error) {
	mt, ok := Sniff(data)
	if !ok {
		return Image{}, ErrNotImage
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data)) // the formats registered by the imports
	if err != nil {
		return Image{}, fmt.Errorf("reading the %s image: %w", mt, err)
	}
	out := Image{MediaType: mt, OrigType: mt, Data: data, Width: cfg.Width, Height: cfg.Height, OrigWidth: cfg.Width, OrigHeight: cfg.Height, OrigBytes: len(data)}
	if max(cfg.Width, cfg.Height) <= lim.MaxEdge && len(data) <= lim.MaxBytes {
		return out, nil
	}
	if cfg.Width*cfg.Height > MaxPixels {
		return Image{}, fmt.Errorf("the %s image is %dx%d, more than %d megapixels: too large to scale here", mt, cfg.Width, cfg.Height, MaxPixels/1_000_000)
	}
	if n := cfg.Width * cfg.Height * bytesPerPixel(cfg.ColorModel); n > MaxDecodedBytes {
		return Image{}, fmt.Errorf("the %s image is %dx%d with %d bytes a pixel, more than %d MiB decoded: too large to scale here", mt, cfg.Width, cfg.Height, bytesPerPixel(cfg.ColorModel), MaxDecodedBytes>>20)
	}
	decoding.Lock()
	defer decoding.Unlock()
	src, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return Image{}, fmt.Errorf("reading the %s image: %w", mt, err)
	}
	edge := min(max(cfg.Width, cfg.Height), lim.MaxEdge)
	for quality := 85; ; quality -= 15 {
		w, h := scaled(cfg.Width, cfg.Height, edge)
		dst := image.NewRGBA(image.Rect(0, 0, w, h))
		draw.ApproxBiLinear.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Src, nil)
		var buf bytes.Buffer
		outType := "image/jpeg"
		if (mt == "image/png" || mt == "image/gif") && quality == 85 {
			outType = "image/png"
			err = png.Encode(&buf, dst)
		} else {
			err = jpeg.Encode(&buf, dst, &jpeg.Options{Quality: max(quality, 40)})
		}
		if err != nil {
			return Image{}, fmt.Errorf("encoding the scaled image: %w", err)
		}
		out.MediaType, out.Data, out.Width, out.Height = outType, buf.Bytes(), w, h
		if buf.Len() <= lim.MaxBytes || edge <= 64 {
			return out, nil
		}
		if quality <= 40 {
			edge = edge * 3 / 4
		}
	}
}

// scaled is w x h with its longer side made edge, at least 1 x 1.
func scaled(w, h, edge int) (int, int) {
	if w >= h {
		return edge, max(1, h*edge/w)
	}
	return max(1, w*edge/h), edge
}
