package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Registry holds the tools of a session by name, each with its compiled
// argument schema.
type Registry struct {
	tools   map[string]Tool
	schemas map[string]*jsonschema.Schema
}

// NewRegistry compiles each tool's schema and returns the registry. It fails
// when two tools share a name or a schema does not compile.
func NewRegistry(ts ...Tool) (*Registry, error) {
	r := &Registry{tools: map[string]Tool{}, schemas: map[string]*jsonschema.Schema{}}
	for _, t := range ts {
		if err := r.add(t); err != nil {
			return nil, err
		}
	}
	return r, nil
}

func (r *Registry) add(t Tool) error {
	def := t.Definition()
	if _, dup := r.tools[def.Name]; dup {
		return fmt.Errorf("tool %q registered twice", def.Name)
	}
	s, err := CompileSchema(def.Schema)
	if err != nil {
		return fmt.Errorf("tool %s: %w", def.Name, err)
	}
	r.tools[def.Name] = t
	r.schemas[def.Name] = s
	return nil
}

// CompileSchema compiles a JSON Schema document (draft 2020-12 unless it
// names another draft in $schema).
func CompileSchema(schema json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, fmt.Errorf("schema is not JSON: %w", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("tool.json", doc); err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	s, err := c.Compile("tool.json")
	if err != nil {
		return nil, fmt.Errorf("schema does not compile: %w", err)
	}
	return s, nil
}

// Get returns the tool called name.
func (r *Registry) Get(name string) (Tool, bool) {
	t, ok := r.tools[name]
	return t, ok
}

// Names returns the names of all tools, sorted.
func (r *Registry) Names() []string {
	names := make([]string, 0, len(r.tools))
	for n := range r.tools {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Validate checks raw arguments against the schema of the tool called name
// and returns them ready for Run ("" becomes {}). The error is written for
// the model: it says what is wrong and where.
func (r *Registry) Validate(name, args string) (json.RawMessage, error) {
	s, ok := r.schemas[name]
	if !ok {
		return nil, fmt.Errorf("unknown tool %q; the tools are: %s", name, strings.Join(r.Names(), ", "))
	}
	if strings.TrimSpace(args) == "" {
		args = "{}"
	}
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(args))
	if err != nil {
		return nil, fmt.Errorf("arguments are not valid JSON: %v", err)
	}
	if err := s.Validate(v); err != nil {
		return nil, fmt.Errorf("arguments do not match the schema: %s", schemaMessage(err))
	}
	return json.RawMessage(args), nil
}

// schemaMessage flattens a jsonschema validation error into one short text:
// the library's own lines ("at '/limit': minimum: got 0, want 1") without
// its header, which names an internal schema URL.
func schemaMessage(err error) string {
	var msgs []string
	for _, line := range strings.Split(err.Error(), "\n")[1:] {
		if line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "- ")); line != "" {
			msgs = append(msgs, line)
		}
	}
	if len(msgs) == 0 {
		return err.Error()
	}
	return strings.Join(msgs, "; ")
}
