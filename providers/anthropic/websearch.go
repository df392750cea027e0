package anthropic

import (
	"encoding/json"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/packages/param"

	"github.com/agent-dev/agent/providers"
)

// vendor is the providers.WebSearch.Vendor of this adapter.
const vendor = "anthropic"

// search is a server_tool_use block and, once it came, its result block,
// as the stream delivered them.
type search struct {
	id, name string
	input    strings.Builder // the input JSON, from input_json_delta
	result   string          // the web_search_tool_result block's raw JSON
	part     providers.WebSearch
}

// query is the search's query (or the page a fetch opened) from its input.
func (s *search) query() string {
	var in struct {
		Query string `json:"query"`
		URL   string `json:"url"`
	}
	_ = json.Unmarshal([]byte(s.input.String()), &in)
	if in.Query != "" {
		return in.Query
	}
	return in.URL
}

// take reads the web_search_tool_result block cb into the search's part:
// its sources, or its error code.
func (s *search) take(cb sdk.ContentBlockStartEventContentBlockUnion) {
	s.result = cb.RawJSON()
	s.part = providers.WebSearch{ID: s.id, Query: s.query(), Vendor: vendor}
	if code := cb.Content.ErrorCode; code != "" {
		s.part.Error = code
	}
	for _, r := range cb.Content.OfWebSearchResultBlockArray {
		s.part.Sources = append(s.part.Sources, providers.Source{URL: r.URL, Title: r.Title})
	}
}

// toPart is the search as a part: the server_tool_use block and its
// result block in Raw, sent back as they came.
func (s *search) toPart() providers.WebSearch {
	p := s.part
	p.ID, p.Vendor = s.id, vendor
	if p.Query == "" {
		p.Query = s.query()
	}
	input := json.RawMessage(s.input.String())
	if !json.Valid(input) {
		input = json.RawMessage("{}")
	}
	use, _ := json.Marshal(map[string]any{"type": "server_tool_use", "id": s.id, "name": s.name, "input": input})
	raw := []json.RawMessage{use}
	if s.result != "" {
		raw = append(raw, json.RawMessage(s.result))
	}
	p.Raw, _ = json.Marshal(raw)
	return p
}

// searchToWire sends back a search this adapter received: its blocks as
// they came (the result's encrypted content lets the model cite it in later
// turns). Another vendor's search is not sent; the answer's text carries
// what it found.
func searchToWire(p providers.WebSearch) []sdk.ContentBlockParamUnion {
	if p.Vendor != vendor {
		return nil
	}
	var raw []json.RawMessage
	if json.Unmarshal(p.Raw, &raw) != nil {
		return nil
	}
	var out []sdk.ContentBlockParamUnion
	for _, b := range raw {
		var head struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal(b, &head)
		switch head.Type {
		case "server_tool_use":
			use := param.Override[sdk.ServerToolUseBlockParam](b)
			out = append(out, sdk.ContentBlockParamUnion{OfServerToolUse: &use})
		case "web_search_tool_result":
			res := param.Override[sdk.WebSearchToolResultBlockParam](b)
			out = append(out, sdk.ContentBlockParamUnion{OfWebSearchToolResult: &res})
		}
	}
	return out
}

// citation maps a web_search_result_location citation; other kinds
// (documents, search results given by the caller) are not web citations.
func citation(c sdk.CitationsDeltaCitationUnion) (providers.Citation, bool) {
	if c.Type != "web_search_result_location" {
		return providers.Citation{}, false
	}
	return providers.Citation{URL: c.URL, Title: c.Title, CitedText: c.CitedText}, true
}
