package openai

import (
	"encoding/json"

	"github.com/agent-dev/agent/providers"
	goopenai "github.com/sashabaranov/go-openai"
)

// emptySchema is sent for a tool defined without parameters: servers reject
// a function whose parameters are null.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// deferredSchema is the smallest schema sent for a deferred tool: its full
// definition reaches the model in a tool result (see
// providers.ToolDefinition.Deferred), so the tools array never changes.
var deferredSchema = json.RawMessage(`{"type":"object"}`)

// toWire maps a neutral request to a streaming chat completions request.
// includeUsage adds stream_options.include_usage. MaxOutputTokens (the
// request's, else maxOutput) is sent as max_completion_tokens, OpenAI's
// current name for it, and left out when 0; the thinking budget has no
// counterpart and is not sent. images says whether the model takes images
// (see messagesToWire).
func toWire(req providers.Request, includeUsage bool, maxOutput int, images bool) goopenai.ChatCompletionRequest {
	w := goopenai.ChatCompletionRequest{Model: req.Model, Stream: true, MaxCompletionTokens: req.MaxOutputTokens}
	if w.MaxCompletionTokens == 0 {
		w.MaxCompletionTokens = maxOutput
	}
	if includeUsage {
		w.StreamOptions = &goopenai.StreamOptions{IncludeUsage: true}
	}
	if req.ToolChoice == providers.ToolChoiceNone && len(req.Tools) > 0 {
		w.ToolChoice = "none"
	}
	if req.System != "" {
		w.Messages = append(w.Messages, goopenai.ChatCompletionMessage{Role: goopenai.ChatMessageRoleSystem, Content: req.System})
	}
	for _, m := range req.Messages {
		w.Messages = append(w.Messages, messagesToWire(m, images)...)
	}
	for _, t := range req.Tools {
		w.Tools = append(w.Tools, goopenai.Tool{Type: goopenai.ToolTypeFunction, Function: toolToWire(t)})
	}
	return w
}

// toolToWire maps a tool definition: a deferred one is its name and the
// smallest schema, described in full where a tool result delivers it.
func toolToWire(t providers.ToolDefinition) *goopenai.FunctionDefinition {
	if t.Deferred {
		return &goopenai.FunctionDefinition{Name: t.Name, Parameters: deferredSchema}
	}
	params := t.Parameters
	if len(params) == 0 || string(params) == "null" {
		params = emptySchema
	}
	return &goopenai.FunctionDefinition{Name: t.Name, Description: t.Description, Parameters: params}
}

// messagesToWire maps one neutral message to wire messages: a tool message
// becomes one wire message per ToolResult, an assistant message with
// nothing to send (only reasoning) becomes none. Reasoning is never sent.
//
// With images, a user message's images are image_url parts holding data
// URLs, between its text parts; a tool message's content is text only in
// chat completions, so a result's images follow the tool messages in one
// user message that says which call they belong to. Without images every
// image is its description.
func messagesToWire(m providers.Message, images bool) []goopenai.ChatCompletionMessage {
	switch m.Role {
	case providers.RoleTool:
		var out []goopenai.ChatCompletionMessage
		var shown []goopenai.ChatMessagePart
		for _, p := range m.Parts {
			if r, ok := p.(providers.ToolResult); ok {
				content := r.PlainContent()
				if images {
					content = r.Content
				}
				if content == "" {
					content = "(no output)" // some servers reject a tool message without content
				}
				out = append(out, goopenai.ChatCompletionMessage{
					Role: goopenai.ChatMessageRoleTool, Content: content, ToolCallID: r.CallID,
				})
				if images && len(r.Images) > 0 {
					shown = append(shown, goopenai.ChatMessagePart{Type: goopenai.ChatMessagePartTypeText,
						Text: "The images of the result of tool call " + r.CallID + " (" + r.Name + "):"})
					shown = append(shown, imageParts(r.Images)...)
				}
			}
		}
		if len(shown) > 0 {
			out = append(out, goopenai.ChatCompletionMessage{Role: goopenai.ChatMessageRoleUser, MultiContent: shown})
		}
		return out
	case providers.RoleAssistant:
		w := goopenai.ChatCompletionMessage{Role: goopenai.ChatMessageRoleAssistant, Content: m.Text()}
		for _, c := range m.ToolCalls() {
			args := c.Arguments
			if args == "" {
				args = "{}"
			}
			w.ToolCalls = append(w.ToolCalls, goopenai.ToolCall{
				ID: c.ID, Type: goopenai.ToolTypeFunction,
				Function: goopenai.FunctionCall{Name: c.Name, Arguments: args},
			})
		}
		if w.Content == "" && len(w.ToolCalls) == 0 {
			return nil
		}
		return []goopenai.ChatCompletionMessage{w}
	default:
		if images && hasImage(m) {
			return []goopenai.ChatCompletionMessage{{Role: string(m.Role), MultiContent: userParts(m)}}
		}
		return []goopenai.ChatCompletionMessage{{Role: string(m.Role), Content: m.PlainText()}}
	}
}

func hasImage(m providers.Message) bool {
	for _, p := range m.Parts {
		if _, ok := p.(providers.Image); ok {
			return true
		}
	}
	return false
}

// userParts are a user message's text and images as content parts, in
// order, adjacent texts joined.
func userParts(m providers.Message) []goopenai.ChatMessagePart {
	var out []goopenai.ChatMessagePart
	for _, p := range m.Parts {
		switch p := p.(type) {
		case providers.Text:
			if n := len(out); n > 0 && out[n-1].Type == goopenai.ChatMessagePartTypeText {
				out[n-1].Text += p.Text
			} else if p.Text != "" {
				out = append(out, goopenai.ChatMessagePart{Type: goopenai.ChatMessagePartTypeText, Text: p.Text})
			}
		case providers.Image:
			out = append(out, imageParts([]providers.Image{p})...)
		}
	}
	return out
}

// imageParts are images as image_url parts with data URLs.
func imageParts(imgs []providers.Image) []goopenai.ChatMessagePart {
	out := make([]goopenai.ChatMessagePart, len(imgs))
	for i, img := range imgs {
		out[i] = goopenai.ChatMessagePart{Type: goopenai.ChatMessagePartTypeImageURL, ImageURL: &goopenai.ChatMessageImageURL{URL: img.DataURL()}}
	}
	return out
}

// usageFromWire maps a usage chunk to neutral usage.
func usageFromWire(u *goopenai.Usage) providers.Usage {
	out := providers.Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens}
	if u.PromptTokensDetails != nil {
		out.CachedInputTokens = u.PromptTokensDetails.CachedTokens
	}
	if u.CompletionTokensDetails != nil {
		out.ReasoningTokens = u.CompletionTokensDetails.ReasoningTokens
	}
	return out
}
