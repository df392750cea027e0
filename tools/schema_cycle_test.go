package tools_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/agent-dev/agent/tools"
)

// cyclicSchemas never descend into the value: the library would validate
// the same value against them without end.
var cyclicSchemas = []struct{ name, doc, cycle string }{
	{"root refers to itself", `{"$ref": "#"}`, "# → #"},
	{"two defs refer to each other", `{"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}`,
		"#/$defs/a → #/$defs/b → #/$defs/a"},
	{"allOf", `{"allOf": [{"$ref": "#"}]}`, "# → #/allOf/0 → #"},
	{"anyOf beside properties", `{"type": "object", "properties": {"a": {}}, "anyOf": [{"type": "string"}, {"$ref": "#"}]}`, "#/anyOf/1"},
	{"oneOf", `{"oneOf": [{"$ref": "#"}]}`, "#/oneOf/0"},
	{"not", `{"$defs": {"n": {"not": {"$ref": "#/$defs/n"}}}, "$ref": "#/$defs/n"}`, "#/$defs/n/not"},
	{"if then else", `{"if": {"$ref": "#/$defs/x"}, "$defs": {"x": {"if": false, "else": {"$ref": "#"}}}}`, "#/$defs/x/else"},
	{"dependentSchemas", `{"dependentSchemas": {"a": {"$ref": "#/$defs/~1"}}, "$defs": {"/": {"$ref": "#"}}}`,
		"#/dependentSchemas/a → #/$defs/~1 → #"},
	{"draft-07 dependencies and definitions", `{"$schema": "http://json-schema.org/draft-07/schema#",
		"definitions": {"d": {"dependencies": {"a": {"$ref": "#/definitions/d"}, "b": ["a"]}}}, "$ref": "#/definitions/d"}`,
		"#/definitions/d/dependencies/a"},
	{"$anchor", `{"$ref": "#here", "$defs": {"x": {"$anchor": "here", "allOf": [{"$ref": "#here"}]}}}`, "#/$defs/x"},
	{"$id", `{"$id": "https://example.com/root.json", "$ref": "x.json",
		"$defs": {"x": {"$id": "x.json", "$ref": "https://example.com/x.json"}}}`,
		"#/$defs/x → #/$defs/x"},
	{"draft-07 $id anchor", `{"$schema": "http://json-schema.org/draft-07/schema#",
		"definitions": {"x": {"$id": "#x", "anyOf": [{"$ref": "#x"}]}}, "allOf": [{"$ref": "#x"}]}`, "#/definitions/x"},
	{"$dynamicRef", `{"$dynamicAnchor": "node", "anyOf": [{"$dynamicRef": "#node"}]}`, "#/anyOf/0"},
}

func TestCompileSchemaRefusesRefCycles(t *testing.T) {
	for _, tt := range cyclicSchemas {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tools.CompileSchema(json.RawMessage(tt.doc))
			if err == nil || !strings.Contains(err.Error(), "cycle") || !strings.Contains(err.Error(), tt.cycle) {
				t.Errorf("CompileSchema = %v, want a $ref cycle through %s", err, tt.cycle)
			}
		})
	}
}

// Recursion through a keyword that descends into the value ends with the
// value: such schemas compile and validate.
func TestCompileSchemaAcceptsRecursionIntoTheValue(t *testing.T) {
	tests := []struct{ name, doc, valid, invalid string }{
		{"tree through properties and items",
			`{"type": "object", "required": ["name"], "properties": {"name": {"type": "string"},
			"children": {"type": "array", "items": {"$ref": "#"}}}}`,
			`{"name": "a", "children": [{"name": "b", "children": [{"name": "c"}]}]}`,
			`{"name": "a", "children": [{"name": "b", "children": [{}]}]}`},
		{"list through a def and prefixItems",
			`{"$defs": {"list": {"anyOf": [{"type": "null"}, {"type": "array", "prefixItems": [{"type": "integer"}, {"$ref": "#/$defs/list"}]}]}},
			"$ref": "#/$defs/list"}`,
			`[1, [2, [3, null]]]`, `[1, [2, ["three", null]]]`},
		{"map through additionalProperties and an anchor",
			`{"$anchor": "m", "type": "object", "additionalProperties": {"anyOf": [{"type": "string"}, {"$ref": "#m"}]}}`,
			`{"a": {"b": {"c": "d"}}}`, `{"a": {"b": 3}}`},
		{"one def used twice, no cycle",
			`{"$defs": {"s": {"type": "string"}}, "allOf": [{"$ref": "#/$defs/s"}, {"not": {"$ref": "#/$defs/s", "maxLength": 0}}]}`,
			`"x"`, `""`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := tools.CompileSchema(json.RawMessage(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range []struct {
				doc  string
				want bool
			}{{tt.valid, true}, {tt.invalid, false}} {
				var x any
				if err := json.Unmarshal([]byte(v.doc), &x); err != nil {
					t.Fatal(err)
				}
				if err := s.Validate(x); (err == nil) != v.want {
					t.Errorf("Validate(%s) = %v, want valid %v", v.doc, err, v.want)
				}
			}
		})
	}
}

func TestCompileSchemaRefusesLargeSchemas(t *testing.T) {
	desc := func(n int) json.RawMessage {
		return json.RawMessage(`{"type": "object", "description": "` + strings.Repeat("x", n) + `"}`)
	}
	if _, err := tools.CompileSchema(desc(tools.MaxSchemaSize - 100)); err != nil {
		t.Errorf("a schema just under the cap: %v", err)
	}
	_, err := tools.CompileSchema(desc(tools.MaxSchemaSize))
	if err == nil || !strings.Contains(err.Error(), "256 KiB allowed") {
		t.Errorf("a schema over the cap: %v, want it refused", err)
	}
}

// A stack overflow is fatal, so the check that the agent survives a cyclic
// schema runs in a child process (with a small stack, to fail fast): it
// compiles each schema and validates a value against those that compile.
func TestValidatingACyclicSchemaDoesNotOverflow(t *testing.T) {
	if os.Getenv("AGENT_TEST_CYCLIC_SCHEMAS") == "1" {
		debug.SetMaxStack(32 << 20)
		for _, tt := range cyclicSchemas {
			if s, err := tools.CompileSchema(json.RawMessage(tt.doc)); err == nil {
				_ = s.Validate(map[string]any{"a": 1.0})
			}
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestValidatingACyclicSchemaDoesNotOverflow$")
	cmd.Env = append(os.Environ(), "AGENT_TEST_CYCLIC_SCHEMAS=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the child died: %v\n%.2000s", err, out)
	}
}
