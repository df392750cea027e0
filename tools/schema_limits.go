package tools

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxSchemaDepth is how deeply the objects and arrays of a schema compiled
// by CompileSchema may nest (`{"items": {}}` is two levels). The library
// reads a schema in time that grows with the square of its depth (4,000
// levels, 40 KB, take seconds), and an MCP server chooses its tools'
// schemas; real ones nest a few levels per level of their values.
const MaxSchemaDepth = 64

// schemaDepthError says when doc (JSON) nests objects and arrays more than
// max levels deep, nil when it does not. It reads doc once and decodes
// nothing; strings are skipped, so brackets inside them do not count.
func schemaDepthError(doc []byte, max int) error {
	depth, inString := 0, false
	for i := 0; i < len(doc); i++ {
		c := doc[i]
		switch {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[':
			if depth++; depth > max {
				return fmt.Errorf("schema nests objects and arrays more than %d levels deep", max)
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return nil
}

// Bounds of SchemaMessage: a value quoted in it (the instance that failed,
// which may be the model's whole answer) and the whole message, in bytes.
const (
	maxMessageValue = 200
	maxMessage      = 4 << 10
)

// boundMessage cuts every value msg quotes to maxMessageValue bytes and
// the whole to maxMessage, marking each cut with "…". A value is a run of
// text between spaces, where a quoted string ("a b") or a bracketed list
// or map ([1 2], map[a:1 b:2], {…}) counts as one run.
func boundMessage(msg string) string {
	var b strings.Builder
	for i := 0; i < len(msg); {
		if msg[i] == ' ' || msg[i] == '\n' {
			b.WriteByte(msg[i])
			i++
			continue
		}
		j := valueEnd(msg, i)
		if j-i <= maxMessageValue {
			b.WriteString(msg[i:j])
		} else {
			b.WriteString(cut(msg[i:], maxMessageValue))
			b.WriteString("…")
			switch msg[i] {
			case '"':
				b.WriteByte('"')
			case '[':
				b.WriteByte(']')
			case '{':
				b.WriteByte('}')
			}
		}
		if i = j; b.Len() > maxMessage {
			break
		}
	}
	if b.Len() <= maxMessage {
		return b.String()
	}
	return cut(b.String(), maxMessage-len("…")) + "…"
}

// valueEnd returns where the run of msg that begins at i ends: at a space
// or a newline outside quotes and brackets, or at the end of msg.
func valueEnd(msg string, i int) int {
	depth, inString := 0, false
	for ; i < len(msg); i++ {
		c := msg[i]
		switch {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '[' || c == '{':
			depth++
		case (c == ']' || c == '}') && depth > 0:
			depth--
		case (c == ' ' || c == '\n') && depth == 0:
			return i
		}
	}
	return len(msg)
}

// cut returns the first n bytes of s or fewer, ending at a whole rune.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
