package providers

import (
	"encoding/base64"
	"strings"
)

// TakesImages reports whether model, by its name, takes images in its
// input: OpenAI's GPT-4o, GPT-4.1, GPT-5 and o-series models, Claude 3 and
// later, Gemini, and the open vision models whose names say so (llava,
// "-vl", "vision", pixtral, gemma3, minicpm-v, moondream). A profile's
// images setting overrides it for models the table does not know.
func TakesImages(model string) bool {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	for _, p := range []string{"gpt-4o", "gpt-4.1", "gpt-4-turbo", "gpt-5", "o3", "o4", "chatgpt-4o",
		"claude-3", "claude-sonnet", "claude-opus", "claude-haiku", "gemini", "llava", "bakllava", "pixtral",
		"gemma3", "gemma-3", "minicpm-v", "moondream", "llama4", "llama-4"} {
		if strings.HasPrefix(m, p) {
			return true
		}
	}
	return strings.Contains(m, "-vl") || strings.Contains(m, "vision")
}

// Base64 is the image's data in standard base64, as both APIs take it.
func (i Image) Base64() string { return base64.StdEncoding.EncodeToString(i.Data) }

// DataURL is the image as a data: URL (RFC 2397), OpenAI's image_url.
func (i Image) DataURL() string { return "data:" + i.MediaType + ";base64," + i.Base64() }
