package anthropic

import (
	"encoding/json"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/agent-dev/agent/providers"
)

// toWire maps a neutral request to Messages API parameters, with the
// prompt-cache breakpoints of cache.go placed. The system prompt goes in
// system; tool results go back as tool_result blocks of a user message;
// consecutive messages of one role are merged, as the API wants roles to
// alternate.
func (c *Client) toWire(req providers.Request) sdk.MessageNewParams {
	p := sdk.MessageNewParams{Model: sdk.Model(req.Model)}
	budget := req.ThinkingBudget
	if budget == 0 {
		budget = c.cfg.ThinkingBudget
	}
	maxTokens := req.MaxOutputTokens
	if maxTokens == 0 {
		maxTokens = c.cfg.MaxOutputTokens
	}
	if maxTokens == 0 {
		maxTokens = DefaultMaxOutputTokens
		if budget > 0 {
			maxTokens += budget
		}
	}
	p.MaxTokens = int64(maxTokens)
	switch {
	case budget > 0 && adaptiveThinking(req.Model):
		p.Thinking = sdk.ThinkingConfigParamUnion{OfAdaptive: &sdk.ThinkingConfigAdaptiveParam{
			Display: sdk.ThinkingConfigAdaptiveDisplaySummarized, // stream the thinking, as with a budget
		}}
	case budget > 0:
		p.Thinking = sdk.ThinkingConfigParamOfEnabled(int64(budget))
	}
	if req.System != "" {
		p.System = []sdk.TextBlockParam{{Text: req.System}}
	}
	if req.ToolChoice == providers.ToolChoiceNone && len(req.Tools) > 0 {
		p.ToolChoice = sdk.ToolChoiceUnionParam{OfNone: &sdk.ToolChoiceNoneParam{}}
	}
	for _, t := range req.Tools {
		tp := toolToWire(t)
		if t.Deferred {
			tp.DeferLoading = sdk.Bool(true)
		}
		p.Tools = append(p.Tools, sdk.ToolUnionParam{OfTool: tp})
	}
	if c.cfg.WebSearch {
		p.Tools = append(p.Tools, sdk.ToolUnionParam{OfWebSearchTool20250305: &sdk.WebSearchTool20250305Param{MaxUses: sdk.Int(MaxWebSearches)}})
	}
	p.Messages = messagesToWire(req.Messages, deferredNames(req.Tools), c.takesImages(req.Model))
	placeBreakpoints(&p)
	return p
}

// adaptiveThinking reports whether model takes adaptive thinking (the model
// decides how much to think) rather than a budget: Anthropic deprecated
// budgets for these, and the SDK warns on stderr, which would tear the
// interface. The budget still turns thinking on and sizes max_tokens.
func adaptiveThinking(model string) bool {
	for _, prefix := range []string{"claude-opus-4-6", "claude-mythos"} {
		if strings.HasPrefix(model, prefix) {
			return true
		}
	}
	return false
}

// toolToWire maps a tool definition; a tool without parameters gets an
// empty object schema, as the API requires one.
func toolToWire(t providers.ToolDefinition) *sdk.ToolParam {
	tp := &sdk.ToolParam{Name: t.Name, InputSchema: sdk.ToolInputSchemaParam{Properties: map[string]any{}}}
	if t.Description != "" {
		tp.Description = sdk.String(t.Description)
	}
	var schema map[string]any
	if len(t.Parameters) > 0 && json.Unmarshal(t.Parameters, &schema) == nil && schema != nil {
		for k, v := range schema {
			switch k {
			case "type":
			case "properties":
				tp.InputSchema.Properties = v
			case "required":
				if list, ok := v.([]any); ok {
					for _, r := range list {
						if s, ok := r.(string); ok {
							tp.InputSchema.Required = append(tp.InputSchema.Required, s)
						}
					}
				}
			default:
				if tp.InputSchema.ExtraFields == nil {
					tp.InputSchema.ExtraFields = map[string]any{}
				}
				tp.InputSchema.ExtraFields[k] = v
			}
		}
	}
	return tp
}

// messagesToWire maps the conversation. Reasoning goes back only when it
// is signed (a thinking block with its signature) or redacted; a Reasoning
// without either (an OpenAI-compatible server's, or one whose stream was cut
// before its signature) is dropped. Messages left without blocks are
// dropped.
//
// A tool result references only tools of deferred (see toolResultToWire).
// Images go as image blocks (base64 source) when images is true, else as
// their description.
func messagesToWire(msgs []providers.Message, deferred map[string]bool, images bool) []sdk.MessageParam {
	var out []sdk.MessageParam
	for _, m := range msgs {
		role := sdk.MessageParamRoleUser
		if m.Role == providers.RoleAssistant {
			role = sdk.MessageParamRoleAssistant
		}
		blocks := blocksToWire(m, deferred, images)
		if len(blocks) == 0 {
			continue
		}
		if n := len(out); n > 0 && out[n-1].Role == role {
			out[n-1].Content = append(out[n-1].Content, blocks...)
			continue
		}
		out = append(out, sdk.MessageParam{Role: role, Content: blocks})
	}
	return out
}

func blocksToWire(m providers.Message, deferred map[string]bool, images bool) []sdk.ContentBlockParamUnion {
	var blocks []sdk.ContentBlockParamUnion
	for _, part := range m.Parts {
		switch p := part.(type) {
		case providers.Text:
			if p.Text != "" { // the API rejects empty text blocks
				blocks = append(blocks, sdk.NewTextBlock(p.Text))
			}
		case providers.Reasoning:
			switch {
			case m.Role != providers.RoleAssistant:
			case p.Redacted != "":
				blocks = append(blocks, sdk.NewRedactedThinkingBlock(p.Redacted))
			case p.Signature != "":
				blocks = append(blocks, sdk.NewThinkingBlock(p.Signature, p.Text))
			}
		case providers.ToolCall:
			blocks = append(blocks, sdk.NewToolUseBlock(p.ID, toolInput(p.Arguments), p.Name))
		case providers.Image:
			if images {
				blocks = append(blocks, sdk.NewImageBlockBase64(p.MediaType, p.Base64()))
			} else {
				blocks = append(blocks, sdk.NewTextBlock(p.Describe()))
			}
		case providers.ToolResult:
			blocks = append(blocks, toolResultToWire(p, deferred, images))
		case providers.WebSearch:
			if m.Role == providers.RoleAssistant {
				blocks = append(blocks, searchToWire(p)...)
			}
		}
	}
	return blocks
}

// toolResultToWire maps a tool result. One that references deferred tools
// is those tool_reference blocks alone (the API expands each into the
// tool's definition where the result sits; its Content, the same
// definitions as text for other vendors, is not sent). The API rejects a
// reference to a tool that is not a deferred tool of the request (an MCP
// server's tool that is gone), so such references are left out, and a
// result left without any is its Content.
//
// A result's images, when the model takes them, follow its text as image
// blocks inside the tool_result (the Messages API's shape for a tool that
// returns a picture).
func toolResultToWire(r providers.ToolResult, deferred map[string]bool, images bool) sdk.ContentBlockParamUnion {
	res := sdk.ToolResultBlockParam{ToolUseID: r.CallID}
	for _, name := range r.References {
		if deferred[name] {
			res.Content = append(res.Content, sdk.ToolResultBlockParamContentUnion{
				OfToolReference: &sdk.ToolReferenceBlockParam{ToolName: name},
			})
		}
	}
	if len(res.Content) > 0 {
		return sdk.ContentBlockParamUnion{OfToolResult: &res}
	}
	if images && len(r.Images) > 0 {
		if r.Content != "" {
			res.Content = append(res.Content, sdk.ToolResultBlockParamContentUnion{OfText: &sdk.TextBlockParam{Text: r.Content}})
		}
		for _, img := range r.Images {
			src := sdk.ImageBlockParamSourceUnion{OfBase64: &sdk.Base64ImageSourceParam{Data: img.Base64(), MediaType: sdk.Base64ImageSourceMediaType(img.MediaType)}}
			res.Content = append(res.Content, sdk.ToolResultBlockParamContentUnion{OfImage: &sdk.ImageBlockParam{Source: src}})
		}
		if r.IsError {
			res.IsError = sdk.Bool(true)
		}
		return sdk.ContentBlockParamUnion{OfToolResult: &res}
	}
	content := r.PlainContent()
	if content == "" {
		content = "(no output)"
	}
	return sdk.NewToolResultBlock(r.CallID, content, r.IsError)
}

// deferredNames is the set of the deferred tools' names.
func deferredNames(tools []providers.ToolDefinition) map[string]bool {
	names := map[string]bool{}
	for _, t := range tools {
		if t.Deferred {
			names[t.Name] = true
		}
	}
	return names
}

// toolInput is a tool call's arguments as the JSON object the API wants;
// arguments that are not a JSON object (the model wrote invalid JSON, which
// the tool answered with an error) go back as an empty object.
func toolInput(args string) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(args), &obj) != nil || obj == nil {
		return json.RawMessage("{}")
	}
	return json.RawMessage(args)
}

// finishReason maps a stop reason onto the neutral vocabulary: end_turn and
// stop_sequence are a stop, tool_use tool calls, max_tokens (and a full
// context window) the output limit, refusal a content filter, pause_turn a
// pause the conversation can continue from.
func finishReason(r sdk.StopReason) providers.FinishReason {
	switch r {
	case sdk.StopReasonEndTurn, sdk.StopReasonStopSequence:
		return providers.FinishStop
	case sdk.StopReasonToolUse:
		return providers.FinishToolCalls
	case sdk.StopReasonMaxTokens, "model_context_window_exceeded":
		return providers.FinishLength
	case sdk.StopReasonRefusal:
		return providers.FinishContentFilter
	case sdk.StopReasonPauseTurn:
		return providers.FinishPause
	case "":
		return ""
	default:
		return providers.FinishReason(r)
	}
}
