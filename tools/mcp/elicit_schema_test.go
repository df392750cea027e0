package mcp

import (
	"strings"
	"testing"
)

// A form whose schema's references loop (the SDK would check the answer
// against it, and the validator's stack would overflow, ending the
// process) is refused before the person is asked; a flat form is not.
func TestAFormWhoseSchemaLoopsIsRefused(t *testing.T) {
	if _, err := schemaFields(map[string]any{"type": "object", "$ref": "#"}); err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Errorf("a looping schema: err = %v, want the cycle refused", err)
	}
	fields, err := schemaFields(map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}})
	if err != nil || len(fields) != 1 {
		t.Errorf("a flat form: %v, %v", fields, err)
	}
}
