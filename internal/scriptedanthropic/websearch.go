package scriptedanthropic

// SearchResult is one web_search_result of a web_search_tool_result block.
type SearchResult struct {
	URL, Title, PageAge, Encrypted string
}

// Citation is a web_search_result_location citation of a text block, sent
// as a citations_delta after the block's text.
type Citation struct {
	URL, Title, CitedText, EncryptedIndex string
}

// WebSearch is the pair of blocks of a server-side search, as the API
// streams them (the web search tool's documentation, "Streaming"): a
// server_tool_use block named web_search whose input, {"query":...},
// comes as input_json_delta, then a web_search_tool_result block whole in
// its content_block_start.
func WebSearch(id, query string, results ...SearchResult) []Block {
	return []Block{
		{Type: "server_tool_use", ID: id, Name: "web_search", Input: mustJSON(map[string]any{"query": query})},
		{Type: "web_search_tool_result", ID: id, Results: results},
	}
}

// SearchError is a web_search_tool_result block reporting errorCode
// ("max_uses_exceeded", "unavailable", ...) for the search id.
func SearchError(id, errorCode string) Block {
	return Block{Type: "web_search_tool_result", ID: id, ErrorCode: errorCode}
}

// CitedText is a text block with citations.
func CitedText(s string, citations ...Citation) Block {
	return Block{Type: "text", Text: s, Citations: citations}
}

// searchResultContent is the content of a web_search_tool_result block.
func (b Block) searchResultContent() any {
	if b.ErrorCode != "" {
		return map[string]any{"type": "web_search_tool_result_error", "error_code": b.ErrorCode}
	}
	results := []any{}
	for _, r := range b.Results {
		results = append(results, map[string]any{"type": "web_search_result", "url": r.URL, "title": r.Title,
			"encrypted_content": r.Encrypted, "page_age": r.PageAge})
	}
	return results
}

// citationDeltas are the citations_delta payloads of a text block.
func (b Block) citationDeltas() []map[string]any {
	var out []map[string]any
	for _, c := range b.Citations {
		out = append(out, map[string]any{"type": "citations_delta", "citation": map[string]any{
			"type": "web_search_result_location", "url": c.URL, "title": c.Title, "cited_text": c.CitedText,
			"encrypted_index": c.EncryptedIndex,
		}})
	}
	return out
}
