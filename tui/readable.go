package tui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode"
)

// readableArgs shows a JSON object's fields as lines a person reads, in
// the object's order: "key: value" for a string, number or boolean, a
// list's items on lines of their own ("  - item"), an object's fields
// indented under its key; null and empty fields are left out. A key or
// string holding a line break or another control character reads quoted
// as JSON writes it, on its one line: a repository's value cannot pass for
// lines of its own or push the rest out of sight. Text that is not one
// JSON object is returned as it is.
func readableArgs(args string) string {
	var b strings.Builder
	dec := json.NewDecoder(strings.NewReader(args))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return args
	}
	dec = json.NewDecoder(strings.NewReader(args))
	dec.UseNumber()
	if err := readableValue(&b, dec, "", ""); err != nil {
		return args
	}
	if _, err := dec.Token(); err != io.EOF { // more after the object
		return args
	}
	return strings.TrimRight(b.String(), "\n")
}

// readableText is s as it is, or quoted as JSON writes it when it holds a
// control character (a line break, an escape).
func readableText(s string) string {
	if strings.IndexFunc(s, unicode.IsControl) < 0 {
		return s
	}
	var q bytes.Buffer
	enc := json.NewEncoder(&q)
	enc.SetEscapeHTML(false) // "&&" reads as itself
	_ = enc.Encode(s)
	return strings.TrimSuffix(q.String(), "\n")
}

// readableValue writes the next value of dec under key at indent.
func readableValue(b *strings.Builder, dec *json.Decoder, indent, key string) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	label := indent
	if key != "" {
		label += key + ":"
	}
	switch t := tok.(type) {
	case json.Delim:
		var body strings.Builder
		switch t {
		case '{':
			inner := indent
			if key != "" {
				inner += "  "
			}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return err
				}
				if err := readableValue(&body, dec, inner, readableText(fmt.Sprint(kt))); err != nil {
					return err
				}
			}
		case '[':
			for dec.More() {
				var raw json.RawMessage
				if err := dec.Decode(&raw); err != nil {
					return err
				}
				body.WriteString(indent + "  - " + scalarText(raw) + "\n")
			}
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return err
		}
		if body.Len() == 0 {
			return nil
		}
		if key != "" {
			b.WriteString(label + "\n")
		}
		b.WriteString(body.String())
	case nil:
	case string:
		if t != "" {
			b.WriteString(label + " " + readableText(t) + "\n")
		}
	default:
		b.WriteString(label + " " + fmt.Sprint(t) + "\n")
	}
	return nil
}

// scalarText is a list item: a string as it is, anything else as compact
// JSON.
func scalarText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return readableText(s)
	}
	var c bytes.Buffer
	if json.Compact(&c, raw) == nil {
		return c.String()
	}
	return string(raw)
}
