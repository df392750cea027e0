package sessions

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/agent-dev/agent/providers"
)

// The tags of the stored part types. They are part of the database format:
// never rename one.
const (
	tagText       = "text"
	tagReasoning  = "reasoning"
	tagToolCall   = "tool_call"
	tagToolResult = "tool_result"
	tagImage      = "image"
	tagWebSearch  = "web_search"
	tagCitation   = "citation"
)

// wirePart is the stored JSON of one part. Only the fields of its type are
// written:
//
//	{"type":"text","text":"..."}
//	{"type":"reasoning","text":"...","signature":"..."}
//	{"type":"reasoning","redacted":"..."}
//	{"type":"reasoning","text":"...","encrypted":"...","id":"rs_..."}
//	{"type":"tool_call","id":"...","name":"...","arguments":"..."}
//	{"type":"tool_result","call_id":"...","name":"...","content":"...","is_error":true,
//	 "images":[{"media_type":"image/png","data":"BASE64"}],"references":["..."]}
//	{"type":"image","media_type":"image/png","data":"BASE64"}
//	{"type":"web_search","id":"...","text":"QUERY","sources":[{"url":"...","title":"..."}],
//	 "content":"ERROR","vendor":"anthropic","raw":[...]}
//	{"type":"citation","sources":[{"url":"...","title":"..."}],"text":"CITED TEXT"}
//
// In the database an image names its bytes instead, by the SHA-256 of
// them, in the images table (migration 11): {"media_type":"image/png",
// "sha256":"HEX","bytes":4033}; MarshalParts (an export) inlines them.
//
// arguments is the model's raw text as a JSON string, since it may be
// invalid JSON.
type wirePart struct {
	Type      string `json:"type"`
	Text      string `json:"text,omitempty"`
	ID        string `json:"id,omitempty"`
	CallID    string `json:"call_id,omitempty"`
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments,omitempty"`
	Content   string `json:"content,omitempty"`
	IsError   bool   `json:"is_error,omitempty"`
	// References are a ToolResult's: the deferred tools whose definitions
	// it delivers.
	References []string `json:"references,omitempty"`
	// Signature and Redacted are a Reasoning's: the vendor's signature of
	// its text, or the data of a redacted thinking block. Both go back to
	// the vendor unchanged when the session continues.
	Signature string `json:"signature,omitempty"`
	Redacted  string `json:"redacted,omitempty"`
	// Encrypted is an OpenAI Responses reasoning item's encrypted content
	// (its id is ID).
	Encrypted string `json:"encrypted,omitempty"`
	// Sources, Vendor and Raw are a web search's (a citation's one
	// source is Sources[0]).
	Sources []providers.Source `json:"sources,omitempty"`
	Vendor  string             `json:"vendor,omitempty"`
	Raw     json.RawMessage    `json:"raw,omitempty"`
	// MediaType and Data are an image part's; Images a tool result's.
	MediaType string      `json:"media_type,omitempty"`
	Data      []byte      `json:"data,omitempty"`
	Images    []wireImage `json:"images,omitempty"`
	// SHA256 and Bytes are a stored image part's reference (Data empty).
	SHA256 string `json:"sha256,omitempty"`
	Bytes  int    `json:"bytes,omitempty"`
}

// wireImage is a stored image of a tool result: its bytes, or in the
// database their hash and size.
type wireImage struct {
	MediaType string `json:"media_type"`
	Data      []byte `json:"data,omitempty"`
	SHA256    string `json:"sha256,omitempty"`
	Bytes     int    `json:"bytes,omitempty"`
}

// imageRefs collects the images of the parts being marshalled by
// reference, by hash; nil marshals them inline.
type imageRefs map[string]providers.Image

// wire returns img as stored: a reference when refs is not nil (and the
// image joins refs), else its bytes.
func (refs imageRefs) wire(img providers.Image) wireImage {
	if refs == nil {
		return wireImage{MediaType: img.MediaType, Data: img.Data}
	}
	sum := sha256.Sum256(img.Data)
	h := hex.EncodeToString(sum[:])
	refs[h] = img
	return wireImage{MediaType: img.MediaType, SHA256: h, Bytes: len(img.Data)}
}

func (refs imageRefs) imagesToWire(imgs []providers.Image) []wireImage {
	var out []wireImage
	for _, i := range imgs {
		out = append(out, refs.wire(i))
	}
	return out
}

// imageLoader gives the bytes of a stored image by its hash.
type imageLoader func(sha string) ([]byte, error)

func (load imageLoader) image(w wireImage) (providers.Image, error) {
	if w.SHA256 == "" || load == nil {
		return providers.Image{MediaType: w.MediaType, Data: w.Data}, nil
	}
	data, err := load(w.SHA256)
	if err != nil {
		return providers.Image{}, fmt.Errorf("image %s: %w", w.SHA256, err)
	}
	return providers.Image{MediaType: w.MediaType, Data: data}, nil
}

func (load imageLoader) imagesFromWire(imgs []wireImage) ([]providers.Image, error) {
	var out []providers.Image
	for _, i := range imgs {
		img, err := load.image(i)
		if err != nil {
			return nil, err
		}
		out = append(out, img)
	}
	return out, nil
}

// MarshalParts encodes parts as the stored JSON array of tagged objects
// (see wirePart), images inline. A nil part is an error.
func MarshalParts(parts []providers.Part) ([]byte, error) {
	return marshalParts(parts, nil)
}

// marshalParts is MarshalParts with images by reference when refs is not
// nil: each image's hash is written, and the image joins refs.
func marshalParts(parts []providers.Part, refs imageRefs) ([]byte, error) {
	wire := make([]wirePart, len(parts))
	for i, p := range parts {
		switch p := p.(type) {
		case providers.Text:
			wire[i] = wirePart{Type: tagText, Text: p.Text}
		case providers.Reasoning:
			wire[i] = wirePart{Type: tagReasoning, Text: p.Text, Signature: p.Signature, Redacted: p.Redacted,
				Encrypted: p.Encrypted, ID: p.ItemID}
		case providers.ToolCall:
			wire[i] = wirePart{Type: tagToolCall, ID: p.ID, Name: p.Name, Arguments: p.Arguments}
		case providers.ToolResult:
			wire[i] = wirePart{Type: tagToolResult, CallID: p.CallID, Name: p.Name, Content: p.Content, IsError: p.IsError,
				Images: refs.imagesToWire(p.Images), References: p.References}
		case providers.Image:
			w := refs.wire(p)
			wire[i] = wirePart{Type: tagImage, MediaType: w.MediaType, Data: w.Data, SHA256: w.SHA256, Bytes: w.Bytes}
		case providers.WebSearch:
			wire[i] = wirePart{Type: tagWebSearch, ID: p.ID, Text: p.Query, Sources: p.Sources, Content: p.Error,
				Vendor: p.Vendor, Raw: p.Raw}
		case providers.Citation:
			wire[i] = wirePart{Type: tagCitation, Text: p.CitedText, Sources: []providers.Source{{URL: p.URL, Title: p.Title}}}
		case nil:
			return nil, fmt.Errorf("part %d: nil part", i)
		default:
			return nil, fmt.Errorf("part %d: unknown part type %T", i, p)
		}
	}
	// Without HTML escaping, so that the stored text reads as written
	// ("&&", not "\u0026\u0026"); decoding is the same either way.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(wire); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// UnmarshalParts decodes what MarshalParts wrote. An unknown "type" is an
// error naming it, never a silently dropped part. An image stored by
// reference comes back without its bytes (see unmarshalParts).
func UnmarshalParts(data []byte) ([]providers.Part, error) {
	return unmarshalParts(data, nil)
}

// unmarshalParts decodes parts, each image stored by reference loaded by
// load.
func unmarshalParts(data []byte, load imageLoader) ([]providers.Part, error) {
	var wire []wirePart
	if err := json.Unmarshal(data, &wire); err != nil {
		return nil, fmt.Errorf("decoding parts: %w", err)
	}
	parts := make([]providers.Part, len(wire))
	for i, w := range wire {
		switch w.Type {
		case tagText:
			parts[i] = providers.Text{Text: w.Text}
		case tagReasoning:
			parts[i] = providers.Reasoning{Text: w.Text, Signature: w.Signature, Redacted: w.Redacted,
				Encrypted: w.Encrypted, ItemID: w.ID}
		case tagToolCall:
			parts[i] = providers.ToolCall{ID: w.ID, Name: w.Name, Arguments: w.Arguments}
		case tagToolResult:
			imgs, err := load.imagesFromWire(w.Images)
			if err != nil {
				return nil, fmt.Errorf("part %d: %w", i, err)
			}
			parts[i] = providers.ToolResult{CallID: w.CallID, Name: w.Name, Content: w.Content, IsError: w.IsError,
				Images: imgs, References: w.References}
		case tagImage:
			img, err := load.image(wireImage{MediaType: w.MediaType, Data: w.Data, SHA256: w.SHA256})
			if err != nil {
				return nil, fmt.Errorf("part %d: %w", i, err)
			}
			parts[i] = img
		case tagWebSearch:
			parts[i] = providers.WebSearch{ID: w.ID, Query: w.Text, Sources: w.Sources, Error: w.Content,
				Vendor: w.Vendor, Raw: w.Raw}
		case tagCitation:
			c := providers.Citation{CitedText: w.Text}
			if len(w.Sources) > 0 {
				c.URL, c.Title = w.Sources[0].URL, w.Sources[0].Title
			}
			parts[i] = c
		case "":
			return nil, fmt.Errorf(`part %d: missing "type"`, i)
		default:
			return nil, fmt.Errorf("part %d: unknown part type %q", i, w.Type)
		}
	}
	return parts, nil
}
