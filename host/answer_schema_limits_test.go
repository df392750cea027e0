package host_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/agent-dev/agent/host"
)

// A --json-schema that refers to itself without descending into the
// value (validating an answer against it would overflow the stack and end
// the run) or that is over 256 KiB (it goes into every request's system
// prompt) is a usage error; a tree schema is fine.
func TestAnswerSchemaRefCycleAndSizeAreUsageErrors(t *testing.T) {
	for doc, problem := range map[string]string{
		`{"$ref": "#"}`: "$ref cycle",
		`{"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}`: "$ref cycle",
		`{"allOf": [{"$ref": "#"}]}`:                              "$ref cycle",
		`{"description": "` + strings.Repeat("x", 256<<10) + `"}`: "256 KiB",
	} {
		_, err := host.ParseAnswerSchema([]byte(doc))
		var ue host.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--json-schema") || !strings.Contains(err.Error(), problem) {
			t.Errorf("ParseAnswerSchema(%.60s) = %v, want a usage error naming --json-schema and %q", doc, err, problem)
		}
	}
	s := mustSchema(t, `{"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#"}}}}`)
	if _, err := s.Check(t.Context(), `{"children": [{"children": []}]}`); err != nil {
		t.Errorf("a tree: %v", err)
	}
	if _, err := s.Check(t.Context(), `{"children": [{"children": 3}]}`); err == nil {
		t.Error("a tree with a bad leaf passed")
	}
}
