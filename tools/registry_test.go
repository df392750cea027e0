package tools_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/agent-dev/agent/tools"
)

type stub struct{ def tools.Definition }

func (s stub) Definition() tools.Definition { return s.def }
func (s stub) Run(_ context.Context, _ tools.Call) (tools.Result, error) {
	return tools.Result{}, nil
}

func TestBriefIsTheFirstParagraphOnOneLine(t *testing.T) {
	tests := map[string]string{
		"Read a file.": "Read a file.",
		"Read a file\nas numbered lines.\n\nDetails.": "Read a file as numbered lines.",
		"\n  Padded.  \n\nMore.":                      "Padded.",
	}
	for desc, want := range tests {
		if got := (tools.Definition{Description: desc}).Brief(); got != want {
			t.Errorf("Brief(%q) = %q, want %q", desc, got, want)
		}
	}
}

func TestValidateSaysWhatIsWrongAndWhere(t *testing.T) {
	reg, err := tools.NewRegistry(stub{tools.Definition{Name: "read_file", Description: "x",
		Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"limit":{"type":"integer","minimum":1}},"required":["path"]}`)}})
	if err != nil {
		t.Fatal(err)
	}
	if raw, err := reg.Validate("read_file", `{"path":"a"}`); err != nil || string(raw) != `{"path":"a"}` {
		t.Errorf("valid arguments refused: %v", err)
	}
	tests := []struct{ args, want string }{
		{`{"limit":2}`, `missing properties: ["path"]`},
		{`{"path":"a","limit":0}`, "/limit"},
		{`{"path":5}`, "/path"},
		{`{"path":`, "not valid JSON"},
		{``, `missing properties: ["path"]`}, // empty arguments are {}
	}
	for _, tt := range tests {
		_, err := reg.Validate("read_file", tt.args)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Validate(%s) = %v, want a message with %q", tt.args, err, tt.want)
		}
	}
	if _, err := reg.Validate("nope", `{}`); err == nil || !strings.Contains(err.Error(), "read_file") {
		t.Errorf("unknown tool: %v", err)
	}
}

func TestRegistryRefusesDuplicatesAndBadSchemas(t *testing.T) {
	a := stub{tools.Definition{Name: "a", Schema: json.RawMessage(`{"type":"object"}`)}}
	if _, err := tools.NewRegistry(a, a); err == nil {
		t.Errorf("duplicate names accepted")
	}
	notJSON := stub{tools.Definition{Name: "j", Schema: json.RawMessage(`{"type":`)}}
	if _, err := tools.NewRegistry(notJSON); err == nil || !strings.Contains(err.Error(), "not JSON") {
		t.Errorf("a schema that is not JSON: %v", err)
	}
}

// TestSchemasCompileOnFirstUse: a schema that does not compile is found on
// the tool's first Validate, which fails then and every time after, while
// the other tools validate as usual.
func TestSchemasCompileOnFirstUse(t *testing.T) {
	bad := stub{tools.Definition{Name: "b", Schema: json.RawMessage(`{"type":"nonsense"}`)}}
	good := stub{tools.Definition{Name: "g", Schema: json.RawMessage(`{"type":"object","required":["x"]}`)}}
	reg, err := tools.NewRegistry(bad, good)
	if err != nil {
		t.Fatalf("NewRegistry compiled a schema before its first use: %v", err)
	}
	for range 2 {
		if _, err := reg.Validate("b", `{}`); err == nil || !strings.Contains(err.Error(), "does not compile") {
			t.Errorf("Validate with a schema that does not compile: %v", err)
		}
	}
	if _, err := reg.Validate("g", `{"x":1}`); err != nil {
		t.Errorf("a good tool beside a bad one: %v", err)
	}
	if _, err := reg.Validate("g", `{}`); err == nil {
		t.Errorf("a good tool's schema is not applied")
	}
}

// TestConcurrentFirstValidate: read-only tool calls of one step are
// validated at the same time; the first use compiles the schema once, and
// the race detector sees no unsynchronised access.
func TestConcurrentFirstValidate(t *testing.T) {
	reg, err := tools.NewRegistry(stub{tools.Definition{Name: "g",
		Schema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","minimum":1}}}`)}})
	if err != nil {
		t.Fatal(err)
	}
	validateAtOnce(t, reg, nil)
}

// validateAtOnce validates eight calls of tool g at the same time, every
// other one's arguments ({"n":0}) invalid, with beside run beside each
// (nil: nothing), and checks each answer.
func validateAtOnce(t *testing.T, reg *tools.Registry, beside func()) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		if beside != nil {
			wg.Go(beside)
		}
		wg.Go(func() {
			args := `{"n":1}`
			if i%2 == 1 {
				args = `{"n":0}`
			}
			_, errs[i] = reg.Validate("g", args)
		})
	}
	wg.Wait()
	for i, err := range errs {
		if (err != nil) != (i%2 == 1) {
			t.Errorf("call %d: %v", i, err)
		}
	}
}

// TestCompileAheadChangesNoAnswer: the loop compiles a call's schema as
// its name streams (Compile), beside the Validate of the step's other
// calls; every Validate answers as it would have, a schema that does not
// compile included, and an unknown name is no error.
func TestCompileAheadChangesNoAnswer(t *testing.T) {
	bad := stub{tools.Definition{Name: "b", Schema: json.RawMessage(`{"type":"nonsense"}`)}}
	good := stub{tools.Definition{Name: "g", Schema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","minimum":1}}}`)}}
	reg, err := tools.NewRegistry(bad, good)
	if err != nil {
		t.Fatal(err)
	}
	reg.Compile("nope")
	validateAtOnce(t, reg, func() { reg.Compile("g"); reg.Compile("b") })
	if _, err := reg.Validate("b", `{}`); err == nil || !strings.Contains(err.Error(), "does not compile") {
		t.Errorf("Validate after Compile of a schema that does not compile: %v", err)
	}
}

// TestCompileSchemaAcceptsWhatServersSendAndRefusesWhatProvidersWould: MCP
// servers send draft-07 and 2020-12 schemas (and now and then an older
// $schema); each must validate arguments. A schema a provider would refuse
// (a type that is no JSON type, at any depth; a keyword of the wrong shape;
// a bad pattern) must not compile, so that its tool is never offered.
func TestCompileSchemaAcceptsWhatServersSendAndRefusesWhatProvidersWould(t *testing.T) {
	good := map[string]string{
		"draft-07":  `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"n":{"type":"integer","minimum":1}},"required":["n"]}`,
		"2020-12":   `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"n":{"type":["integer","null"]}}}`,
		"draft-04":  `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`,
		"enum":      `{"type":"object","properties":{"type":{"type":"string","enum":["nonsense"]}}}`,
		"dependent": `{"type":"object","dependentSchemas":{"type":{"required":["n"]}}}`,
	}
	for name, schema := range good {
		rs, err := tools.CompileSchema(json.RawMessage(schema))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if err := rs.Validate(map[string]any{"n": "x"}); err == nil && name != "enum" && name != "dependent" {
			t.Errorf("%s: a string accepted where the schema wants an integer", name)
		}
	}
	bad := map[string]string{
		"type":        `{"type":"nonsense"}`,
		"nested type": `{"type":"object","properties":{"a":{"type":"array","items":{"type":"strin"}}}}`,
		"shape":       `{"type":"object","required":"a"}`,
		"pattern":     `{"type":"string","pattern":"("}`,
		"ref":         `{"$ref":"#/$defs/missing"}`,
	}
	for name, schema := range bad {
		if _, err := tools.CompileSchema(json.RawMessage(schema)); err == nil {
			t.Errorf("%s: %s compiled", name, schema)
		}
	}
}
