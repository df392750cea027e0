package cmd

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// readableJSON returns JSON text (a model's tool arguments, as written)
// with the \uXXXX escapes of printable characters written as the characters
// themselves: "go build \u0026\u0026 go test" reads "go build && go test".
// Escapes that JSON requires (quote, backslash, control characters) and
// those of surrogate halves stay, so the text means the same JSON; text
// that is not valid JSON is returned unchanged.
func readableJSON(s string) string {
	if !strings.Contains(s, `\u`) || !json.Valid([]byte(s)) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		if s[i+1] != 'u' || i+6 > len(s) {
			b.WriteString(s[i : i+2]) // another escape, kept whole
			i++
			continue
		}
		r, err := strconv.ParseUint(s[i+2:i+6], 16, 32)
		switch {
		case err != nil, r < 0x20, r == '"', r == '\\', r == 0x7f, r >= 0xd800 && r <= 0xdfff,
			r == 0x2028, r == 0x2029, !utf8.ValidRune(rune(r)):
			b.WriteString(s[i : i+6])
		default:
			b.WriteRune(rune(r))
		}
		i += 5
	}
	return b.String()
}

// encodeJSON writes v as JSON on one line followed by a newline, without
// escaping &, < and > (the output is read by people and programs, never
// embedded in HTML; writeIndentedJSON is the indented form).
func encodeJSON(buf *bytes.Buffer, v any) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
