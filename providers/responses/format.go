package responses

import (
	"encoding/base64"
	"encoding/json"
	"strings"

	"github.com/openai/openai-go/v3/packages/param"
	oai "github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/agent-dev/agent/providers"
)

// toWire maps a neutral request to Responses API parameters: the system
// prompt as instructions, the conversation as input items, the tools as
// function tools (not strict: the agent validates arguments itself, and
// strict mode would reject most tools' schemas), store false with the
// encrypted reasoning included, parallel tool calls on, prompt_cache_key
// from CacheKey.
func (c *Client) toWire(req providers.Request) oai.ResponseNewParams {
	p := oai.ResponseNewParams{
		Model:             shared.ResponsesModel(req.Model),
		Store:             param.NewOpt(false),
		ParallelToolCalls: param.NewOpt(true),
	}
	if req.System != "" {
		p.Instructions = param.NewOpt(req.System)
	}
	if n := cmpOr(req.MaxOutputTokens, c.cfg.MaxOutputTokens); n > 0 {
		p.MaxOutputTokens = param.NewOpt(int64(max(n, minOutputTokens)))
	}
	if req.CacheKey != "" {
		p.PromptCacheKey = param.NewOpt(req.CacheKey)
	}
	if c.cfg.ReasoningEffort != "" || Reasons(req.Model) {
		p.Reasoning = shared.ReasoningParam{Effort: shared.ReasoningEffort(c.cfg.ReasoningEffort), Summary: shared.ReasoningSummaryAuto}
		p.Include = append(p.Include, oai.ResponseIncludableReasoningEncryptedContent)
	}
	for _, t := range req.Tools {
		p.Tools = append(p.Tools, oai.ToolUnionParam{OfFunction: toolToWire(t)})
	}
	if c.cfg.WebSearch {
		p.Tools = append(p.Tools, oai.ToolUnionParam{OfWebSearch: &oai.WebSearchToolParam{Type: oai.WebSearchToolTypeWebSearch}})
		p.Include = append(p.Include, oai.ResponseIncludableWebSearchCallActionSources)
	}
	if req.ToolChoice == providers.ToolChoiceNone && len(p.Tools) > 0 {
		p.ToolChoice = oai.ResponseNewParamsToolChoiceUnion{OfToolChoiceMode: param.NewOpt(oai.ToolChoiceOptionsNone)}
	}
	var items oai.ResponseInputParam
	images := c.takesImages(req.Model)
	for _, m := range req.Messages {
		items = append(items, itemsToWire(m, images)...)
	}
	p.Input = oai.ResponseNewParamsInputUnion{OfInputItemList: items}
	return p
}

// minOutputTokens is the smallest max_output_tokens the API accepts; a
// smaller limit (doctor's one-token check) is raised to it.
const minOutputTokens = 16

func cmpOr(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

// toolToWire maps a tool definition: a deferred one is its name and the
// smallest schema (its full definition reaches the model in a tool
// result), one without parameters an empty object schema.
func toolToWire(t providers.ToolDefinition) *oai.FunctionToolParam {
	f := &oai.FunctionToolParam{Name: t.Name, Strict: param.NewOpt(false), Parameters: map[string]any{"type": "object"}}
	if t.Deferred {
		return f
	}
	if t.Description != "" {
		f.Description = param.NewOpt(t.Description)
	}
	var schema map[string]any
	if len(t.Parameters) > 0 && json.Unmarshal(t.Parameters, &schema) == nil && schema != nil {
		f.Parameters = schema
	} else {
		f.Parameters["properties"] = map[string]any{}
	}
	return f
}

// itemsToWire maps one message to input items. A user message is one
// message item of input_text and input_image parts. An assistant message
// becomes, in order, its reasoning items (only those with encrypted
// content, that is, written by this API, and followed by an item), its text as an assistant
// message, and its function calls; web searches and citations are not sent
// back (with store false the server cannot look a search up again, and the
// answer's text carries what it found). A tool message becomes one
// function_call_output per result.
// itemsToWire maps one message to input items; images says whether the
// model takes images (else each image goes as its description).
func itemsToWire(m providers.Message, images bool) []oai.ResponseInputItemUnionParam {
	switch m.Role {
	case providers.RoleTool:
		var out []oai.ResponseInputItemUnionParam
		for _, p := range m.Parts {
			if r, ok := p.(providers.ToolResult); ok {
				out = append(out, toolResultToWire(r, images))
			}
		}
		return out
	case providers.RoleAssistant:
		return assistantToWire(m)
	default:
		var content oai.ResponseInputMessageContentListParam
		for _, p := range m.Parts {
			switch p := p.(type) {
			case providers.Text:
				if p.Text != "" {
					content = append(content, oai.ResponseInputContentUnionParam{OfInputText: &oai.ResponseInputTextParam{Text: p.Text}})
				}
			case providers.Image:
				if !images {
					content = append(content, oai.ResponseInputContentUnionParam{OfInputText: &oai.ResponseInputTextParam{Text: p.Describe()}})
					continue
				}
				content = append(content, oai.ResponseInputContentUnionParam{OfInputImage: &oai.ResponseInputImageParam{
					Detail: oai.ResponseInputImageDetailAuto, ImageURL: param.NewOpt(dataURL(p)),
				}})
			}
		}
		if len(content) == 0 {
			return nil
		}
		return []oai.ResponseInputItemUnionParam{{OfMessage: &oai.EasyInputMessageParam{
			Type: oai.EasyInputMessageTypeMessage, Role: oai.EasyInputMessageRoleUser, Content: oai.EasyInputMessageContentUnionParam{OfInputItemContentList: content},
		}}}
	}
}

func assistantToWire(m providers.Message) []oai.ResponseInputItemUnionParam {
	var out []oai.ResponseInputItemUnionParam
	text := func(s string) {
		if s != "" {
			out = append(out, oai.ResponseInputItemUnionParam{OfMessage: &oai.EasyInputMessageParam{
				Type: oai.EasyInputMessageTypeMessage, Role: oai.EasyInputMessageRoleAssistant, Content: oai.EasyInputMessageContentUnionParam{OfString: param.NewOpt(s)},
			}})
		}
	}
	var pending string // consecutive text parts form one message
	for i, part := range m.Parts {
		switch p := part.(type) {
		case providers.Text:
			pending += p.Text
			continue
		case providers.Citation:
			continue
		}
		text(pending)
		pending = ""
		switch p := part.(type) {
		case providers.Reasoning:
			if p.Encrypted == "" || p.ItemID == "" || !followed(m.Parts[i+1:]) {
				continue
			}
			r := &oai.ResponseReasoningItemParam{ID: p.ItemID, EncryptedContent: param.NewOpt(p.Encrypted),
				Summary: []oai.ResponseReasoningItemSummaryParam{}}
			if p.Text != "" {
				r.Summary = append(r.Summary, oai.ResponseReasoningItemSummaryParam{Text: p.Text})
			}
			out = append(out, oai.ResponseInputItemUnionParam{OfReasoning: r})
		case providers.ToolCall:
			args := p.Arguments
			if args == "" {
				args = "{}"
			}
			out = append(out, oai.ResponseInputItemUnionParam{OfFunctionCall: &oai.ResponseFunctionToolCallParam{
				CallID: p.ID, Name: p.Name, Arguments: args,
			}})
		}
	}
	text(pending)
	return out
}

// followed reports whether a reasoning item has an item after it (text or
// a function call): the API refuses a reasoning item without its
// following item, which a response cut while it reasoned leaves.
func followed(rest []providers.Part) bool {
	for _, p := range rest {
		switch p := p.(type) {
		case providers.Text:
			if p.Text != "" {
				return true
			}
		case providers.ToolCall:
			return true
		}
	}
	return false
}

// toolResultToWire maps a tool result to a function_call_output: its text,
// or, when it has images, a list of input_text and input_image parts. A
// model that takes no images (images false) gets their descriptions after
// the text.
func toolResultToWire(r providers.ToolResult, images bool) oai.ResponseInputItemUnionParam {
	out := &oai.ResponseInputItemFunctionCallOutputParam{CallID: param.NewOpt(r.CallID)}
	content := r.Content
	if !images {
		for _, img := range r.Images {
			content = strings.TrimPrefix(content+"\n"+img.Describe(), "\n")
		}
		r.Images = nil
	}
	if content == "" && len(r.Images) == 0 {
		content = "(no output)"
	}
	if len(r.Images) == 0 {
		out.Output = oai.ResponseInputItemFunctionCallOutputOutputUnionParam{OfString: param.NewOpt(content)}
		return oai.ResponseInputItemUnionParam{OfFunctionCallOutput: out}
	}
	var list oai.ResponseFunctionCallOutputItemListParam
	if content != "" {
		list = append(list, oai.ResponseFunctionCallOutputItemUnionParam{OfInputText: &oai.ResponseInputTextContentParam{Text: content}})
	}
	for _, img := range r.Images {
		list = append(list, oai.ResponseFunctionCallOutputItemUnionParam{OfInputImage: &oai.ResponseInputImageContentParam{
			ImageURL: param.NewOpt(dataURL(img)), Detail: oai.ResponseInputImageContentDetailAuto,
		}})
	}
	out.Output = oai.ResponseInputItemFunctionCallOutputOutputUnionParam{OfResponseFunctionCallOutputItemArray: list}
	return oai.ResponseInputItemUnionParam{OfFunctionCallOutput: out}
}

// dataURL is an image as a data URL ("data:image/png;base64,...").
func dataURL(img providers.Image) string {
	return "data:" + img.MediaType + ";base64," + base64.StdEncoding.EncodeToString(img.Data)
}
