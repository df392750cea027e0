package tools_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agent-dev/agent/tools"
)

// A schema nested deeper than MaxSchemaDepth is refused before the library
// reads it (which would take seconds at depth 4,000); brackets in strings
// do not count, and ordinary depths compile.
func TestCompileSchemaRefusesDeepNesting(t *testing.T) {
	nested := func(n int) json.RawMessage {
		return json.RawMessage(strings.Repeat(`{"items":`, n) + "{}" + strings.Repeat("}", n))
	}
	for _, n := range []int{tools.MaxSchemaDepth, 4000} {
		_, err := tools.CompileSchema(nested(n))
		if err == nil || !strings.Contains(err.Error(), "levels deep") {
			t.Errorf("depth %d: CompileSchema = %v, want it refused for its depth", n+1, err)
		}
	}
	for _, n := range []int{10, tools.MaxSchemaDepth - 1} {
		rs, err := tools.CompileSchema(nested(n))
		if err != nil {
			t.Fatalf("depth %d: %v", n+1, err)
		}
		if err := rs.Validate([]any{}); err != nil {
			t.Errorf("depth %d: %v", n+1, err)
		}
	}
	brackets := `{"type": "string", "pattern": "` + strings.Repeat(`[{`, 200) + `", "description": "\"[[[["}`
	if _, err := tools.CompileSchema(json.RawMessage(brackets)); err != nil && strings.Contains(err.Error(), "deep") {
		t.Errorf("brackets in strings count as nesting: %v", err)
	}
}

// The message of a failed validation, which goes back to the model (each
// --json-schema correction), quotes a bounded part of the value: not a
// 5 MB answer again.
func TestSchemaMessageIsBounded(t *testing.T) {
	rs, err := tools.CompileSchema(json.RawMessage(`{"type": "object", "properties": {"s": {"type": "string", "maxLength": 3}}}`))
	if err != nil {
		t.Fatal(err)
	}
	arr := make([]any, 700000) // "%v" prints ~5 MB
	for i := range arr {
		arr[i] = float64(i)
	}
	words := strings.Repeat("word ", 1<<20)
	for name, tt := range map[string]struct {
		v    any
		want []string
	}{
		"array":           {arr, []string{`has type "array", want "object"`, "[0 1 2 ", "…]"}},
		"string":          {strings.Repeat("x", 5<<20), []string{"xxx…", `has type "string"`}},
		"string of words": {words, []string{"word word", "…"}},
		"quoted property": {map[string]any{"s": strings.Repeat("é", 3<<20)}, []string{"at /properties/s: maxLength: \"éé", "é…\""}},
	} {
		err := rs.Validate(tt.v)
		if err == nil {
			t.Fatalf("%s validated", name)
		}
		msg := tools.SchemaMessage(err)
		if len(msg) > 4096 {
			t.Errorf("%s: the message is %d bytes (begins %.120q)", name, len(msg), msg)
		}
		if !strings.Contains(msg, "…") {
			t.Errorf("%s: the message does not say it was cut: %.300q", name, msg)
		}
		for _, w := range tt.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: %q is not in %.400q", name, w, msg)
			}
		}
		if !utf8.ValidString(msg) {
			t.Errorf("%s: the message was cut inside a character", name)
		}
	}
	short := errors.New(`validating /properties/s: maxLength: "abcd" contains 4 Unicode code points, more than 3`)
	if got, want := tools.SchemaMessage(short), `at /properties/s: maxLength: "abcd" contains 4 Unicode code points, more than 3`; got != want {
		t.Errorf("SchemaMessage = %q, want %q", got, want)
	}
}
