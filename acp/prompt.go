package acp

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/turn"
)

// toPrompt is a session/prompt's content as a turn's user message: text
// blocks as typed text (their @path mentions are attached), a resource
// link as a line naming it, an embedded text resource as its text in a
// <resource> element, an image as an image part. Audio and binary
// resources are refused: no model here takes them.
func toPrompt(blocks []sdk.ContentBlock) (turn.Prompt, error) {
	var parts []providers.Part
	var typed []string
	for _, b := range blocks {
		switch {
		case b.Text != nil:
			parts = append(parts, providers.Text{Text: b.Text.Text})
			typed = append(typed, b.Text.Text)
		case b.ResourceLink != nil:
			parts = append(parts, providers.Text{Text: fmt.Sprintf("[%s](%s)", b.ResourceLink.Name, b.ResourceLink.Uri)})
		case b.Resource != nil && b.Resource.Resource.TextResourceContents != nil:
			r := b.Resource.Resource.TextResourceContents
			parts = append(parts, providers.Text{Text: fmt.Sprintf("<resource uri=%q>\n%s\n</resource>", r.Uri, r.Text)})
		case b.Image != nil:
			data, err := base64.StdEncoding.DecodeString(b.Image.Data)
			if err != nil {
				return turn.Prompt{}, fmt.Errorf("image: %w", err)
			}
			parts = append(parts, providers.Image{MediaType: b.Image.MimeType, Data: data})
		case b.Audio != nil:
			return turn.Prompt{}, errors.New("audio prompts are not supported")
		case b.Resource != nil:
			return turn.Prompt{}, errors.New("binary resources are not supported: embed text")
		}
	}
	if len(parts) == 0 {
		return turn.Prompt{}, errors.New("the prompt is empty")
	}
	msg := providers.Message{Role: providers.RoleUser, Parts: parts}
	return turn.Prompt{Message: msg, Typed: strings.Join(typed, "\n")}, nil
}
