package lsp

import (
	"encoding/json"
	"strings"
)

// MetaKey is the key of a tool result's Meta that holds the Report of the
// change the call made (host's lspNotes sets it).
const MetaKey = "diagnostics"

// ReportOf reads the Report of a tool result's meta: the Report itself
// (or a pointer to one) when it comes straight from the session, or what
// JSON made of it (a map, from a resumed session or another process),
// decoded by a JSON round trip. ok is false when meta has none, or one
// that does not decode.
func ReportOf(meta map[string]any) (r Report, ok bool) {
	switch v := meta[MetaKey].(type) {
	case nil:
		return r, false
	case Report:
		return v, true
	case *Report:
		if v == nil {
			return r, false
		}
		return *v, true
	default:
		data, err := json.Marshal(v)
		if err != nil || json.Unmarshal(data, &r) != nil {
			return Report{}, false
		}
		return r, true
	}
}

// SplitText separates a tool result's content into what the tool said and
// the <diagnostics> block r.Text() appended to it; diagnostics is that
// block without its leading blank line, "" when content does not end with
// it.
func SplitText(content string, r Report) (body, diagnostics string) {
	text := r.Text()
	if text == "" || !strings.HasSuffix(content, text) {
		return content, ""
	}
	return strings.TrimSuffix(content, text), strings.TrimLeft(text, "\n")
}
