package tools_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agent-dev/agent/tools"
)

type stub struct{ def tools.Definition }

func (s stub) Definition() tools.Definition { return s.def }
func (s stub) Run(context.Context, json.RawMessage) (tools.Result, error) {
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
		{`{"limit":2}`, "missing property"},
		{`{"path":"a","limit":0}`, "/limit"},
		{`{"path":5}`, "/path"},
		{`{"path":`, "not valid JSON"},
		{``, "missing property"}, // empty arguments are {}
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
	bad := stub{tools.Definition{Name: "b", Schema: json.RawMessage(`{"type":"nonsense"}`)}}
	if _, err := tools.NewRegistry(bad); err == nil {
		t.Errorf("an invalid schema compiled")
	}
}
