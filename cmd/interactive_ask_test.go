package cmd

import (
	"reflect"
	"strings"
	"testing"

	"github.com/agent-dev/agent/tools/mcp"
)

func TestFormValues(t *testing.T) {
	two := []mcp.Field{{Name: "name", Type: "string"}, {Name: "age", Type: "integer"}}
	one := []mcp.Field{{Name: "city", Type: "string"}}
	for _, tc := range []struct {
		fields []mcp.Field
		typed  string
		want   map[string]any
	}{
		{two, "name=Ada Lovelace; age = 36", map[string]any{"name": "Ada Lovelace", "age": "36"}},
		{two, "name=Ada; colour=red", map[string]any{"name": "Ada"}}, // an unknown field is dropped
		{two, "Ada", map[string]any{}},                               // no NAME= with two fields: nothing
		{one, "Paris, France", map[string]any{"city": "Paris, France"}},
		{one, "  ", map[string]any{}},
	} {
		if got := formValues(tc.fields, tc.typed); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: %v, want %v", tc.typed, got, tc.want)
		}
	}
}

func TestFormText(t *testing.T) {
	got := formText(mcp.Elicitation{Server: "s", Message: "Who?", Fields: []mcp.Field{
		{Name: "name", Type: "string", Required: true, Description: "Your\nname"},
		{Name: "pet", Type: "string", Enum: []string{"cat", "dog"}, Default: "cat", Title: "Pet"},
	}})
	want := "The MCP server s asks: Who?\n  name (string; required): Your name\n  pet (string; one of cat, dog; default cat): Pet"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestMCPStatusLine(t *testing.T) {
	var b strings.Builder
	writeMCPStatus(&b, []mcp.Status{
		{Name: "e", State: mcp.StateRunning, Tools: []string{"mcp__e__echo"}, Prompts: []string{"mcp__e__b", "mcp__e__a"}, Resources: 3},
		{Name: "p", State: mcp.StateReconnecting, Error: "session not found"},
	})
	want := "e: running, 1 tools; prompts: /mcp__e__a, /mcp__e__b; 3 resources (@e:URI)\n  mcp__e__echo\np: reconnecting: session not found\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
