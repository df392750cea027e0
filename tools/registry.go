package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// Registry holds the tools of a session by name, each with its argument
// schema, which is compiled on the tool's first Validate (compiling every
// schema up front cost start-up time that a run which calls few tools, or
// none, never gets back). A Registry is safe for concurrent use.
type Registry struct {
	tools   map[string]Tool
	schemas map[string]func() (*jsonschema.Resolved, error)
}

// NewRegistry returns the registry of ts. It fails when two tools share a
// name or a schema is not JSON; a schema that is JSON but does not compile
// makes every Validate of its tool fail (the conformance suite in
// tools/toolstest compiles each tool's schema, so a tool of ours never
// ships one).
func NewRegistry(ts ...Tool) (*Registry, error) {
	r := &Registry{tools: map[string]Tool{}, schemas: map[string]func() (*jsonschema.Resolved, error){}}
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
	r.schemas[def.Name] = sync.OnceValues(func() (*jsonschema.Resolved, error) { return CompileSchema(schema) })
	return nil
}

// CompileSchema compiles a JSON Schema document: draft 2020-12, or draft-07
// when its $schema names that draft (the two drafts MCP servers and
// providers use). A $schema naming any other draft is set aside and the
// document is read as 2020-12, whose keywords tool schemas share. It fails
// when the document is not JSON or is not a valid schema (an unknown type, a
// keyword of the wrong shape, a "type" that names no JSON type, a $ref that
// does not resolve: remote references are never fetched), when it is
// longer than MaxSchemaSize bytes or nests deeper than MaxSchemaDepth
// (both checked before the library reads it), and when a cycle of references never
// descends into the value (`{"$ref": "#"}`), which would recurse without
// end at every validation (see refCycle).
//
// The library is github.com/google/jsonschema-go, which the MCP SDK links
// anyway; unlike the library before it, it does no work at program start.
func CompileSchema(schema json.RawMessage) (*jsonschema.Resolved, error) {
	if len(schema) > MaxSchemaSize {
		return nil, fmt.Errorf("schema is %d KiB, more than the %d KiB allowed", (len(schema)+1023)/1024, MaxSchemaSize/1024)
	}
	if err := schemaDepthError(schema, MaxSchemaDepth); err != nil {
		return nil, err
	}
	var doc any
	if err := json.Unmarshal(schema, &doc); err != nil {
		return nil, fmt.Errorf("schema is not JSON: %w", err)
	}
	if err := checkTypes(doc); err != nil {
		return nil, fmt.Errorf("schema does not compile: %w", err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, fmt.Errorf("schema does not compile: %w", err)
	}
	switch s.Schema {
	case "", "http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft-07/schema#",
		"https://json-schema.org/draft/2020-12/schema":
	default:
		s.Schema = ""
	}
	rs, err := s.Resolve(nil)
	if err == nil {
		err = refCycle(doc, strings.Contains(s.Schema, "draft-07"))
	}
	if err != nil {
		return nil, fmt.Errorf("schema does not compile: %w", err)
	}
	return rs, nil
}

// MaxSchemaSize is the most bytes of JSON a schema compiled by CompileSchema
// may have: every request carries the schemas of the tools offered, and
// the --json-schema of structured output in its system prompt.
const MaxSchemaSize = 256 << 10

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

// Compile compiles the schema of the tool called name, as its first
// Validate would, so that the Validate of a call finds it compiled: the
// loop calls it in the background once a call's name has streamed, while
// its arguments stream (compiling one of the built-in tools' schemas took
// 0.15 ms in a warm process and 0.3-0.6 ms in a -p run's first call of the
// tool, on the path from the response to the tool; BENCHMARKS.md, issue
// 43). A Validate meanwhile waits for it; an unknown name does nothing,
// and a failure is Validate's to report.
func (r *Registry) Compile(name string) {
	if compiled, ok := r.schemas[name]; ok {
		compiled()
	}
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
	var v any
	if err := json.Unmarshal([]byte(args), &v); err != nil {
		return nil, fmt.Errorf("arguments are not valid JSON: %v", err)
	}
	if err := s.Validate(v); err != nil {
		return nil, fmt.Errorf("arguments do not match the schema: %s", SchemaMessage(err))
	}
	return json.RawMessage(args), nil
}

// SchemaMessage flattens an error of a compiled schema's Validate into
// one short text for the model (and the person). The library nests a
// "validating PATH: " prefix for each level of the schema it descended
// into; only the innermost, the schema location of the failure, is kept ("at /properties/path: type: 5 has type "integer",
// want "string""); the root's names no location and is dropped.
//
// The library quotes the value that failed, which may be the model's
// whole answer: each value quoted is cut to 200 bytes and the message to
// 4 KiB, each cut marked with "…".
func SchemaMessage(err error) string {
	return flatten(boundMessage(err.Error()))
}

// flatten keeps the innermost of msg's "validating PATH: " prefixes.
func flatten(msg string) string {
	if i := strings.LastIndex(msg, "validating "); i >= 0 {
		msg = msg[i+len("validating "):]
		if rest, ok := strings.CutPrefix(msg, "root: "); ok {
			return rest
		}
		return "at " + msg
	}
	return msg
}

// checkTypes reports a "type" keyword anywhere in schema (a decoded JSON
// document) that names no JSON Schema type. The library reads such a
// schema without complaint, but a provider refuses a request that declares
// it, so a tool with one must not be offered.
func checkTypes(schema any) error {
	switch v := schema.(type) {
	case map[string]any:
		for key, val := range v {
			if key == "type" {
				names, ok := val.([]any)
				if !ok {
					names = []any{val}
				}
				for _, n := range names {
					if s, _ := n.(string); !jsonTypes[s] {
						return fmt.Errorf("type %v is not a JSON Schema type", n)
					}
				}
				continue
			}
			if schemaMaps[key] {
				if m, ok := val.(map[string]any); ok {
					for _, sub := range m {
						if err := checkTypes(sub); err != nil {
							return err
						}
					}
				}
				continue
			}
			if key == "enum" || key == "const" || key == "default" || key == "examples" {
				continue
			}
			if err := checkTypes(val); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range v {
			if err := checkTypes(e); err != nil {
				return err
			}
		}
	}
	return nil
}

// schemaMaps are the keywords whose value maps names (chosen by the schema's
// author, "type" among them) to schemas.
var schemaMaps = map[string]bool{"properties": true, "$defs": true, "definitions": true, "patternProperties": true,
	"dependentSchemas": true}

var jsonTypes = map[string]bool{"null": true, "boolean": true, "object": true, "array": true, "number": true,
	"string": true, "integer": true}
