package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Registry holds the tools of a session by name, each with its argument
// schema, which is compiled on the tool's first Validate (compiling every
// schema up front cost start-up time that a run which calls few tools, or
// none, never gets back). A Registry is safe for concurrent use.
type Registry struct {
	tools   map[string]Tool
	schemas map[string]func() (*jsonschema.Schema, error)
}

// NewRegistry returns the registry of ts. It fails when two tools share a
// name or a schema is not JSON; a schema that is JSON but does not compile
// makes every Validate of its tool fail (the conformance suite in
// tools/toolstest compiles each tool's schema, so a tool of ours never
// ships one).
func NewRegistry(ts ...Tool) (*Registry, error) {
	r := &Registry{tools: map[string]Tool{}, schemas: map[string]func() (*jsonschema.Schema, error){}}
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
	if !json.Valid(def.Schema) {
		return fmt.Errorf("tool %s: schema is not JSON", def.Name)
	}
	schema := bytes.Clone(def.Schema)
	r.tools[def.Name] = t
	r.schemas[def.Name] = sync.OnceValues(func() (*jsonschema.Schema, error) { return CompileSchema(schema) })
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
// the model: it says what is wrong and where. The first Validate of a tool
// compiles its schema; when that fails, every Validate of the tool fails and
// says so.
func (r *Registry) Validate(name, args string) (json.RawMessage, error) {
	compiled, ok := r.schemas[name]
	if !ok {
		return nil, fmt.Errorf("unknown tool %q; the tools are: %s", name, strings.Join(r.Names(), ", "))
	}
	s, err := compiled()
	if err != nil {
		return nil, fmt.Errorf("the arguments of %s cannot be checked: its %v", name, err)
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
