package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agent-dev/agent/tools"
)

// AnswerSchema is a JSON Schema that the final answers of a session's
// turns must match (--json-schema, the Claude Agent SDK's outputFormat):
// the model is told so at the end of the system prompt of every request,
// and an answer that is not one JSON value valid against it goes back to
// the model with the validation error (loop.Config.CheckAnswer), at most
// structured_output_retries times a turn. It is safe for concurrent use.
type AnswerSchema struct {
	doc      string // the schema, compact
	resolved *jsonschema.Resolved
}

// ParseAnswerSchema compiles doc, a JSON Schema document (draft 2020-12,
// or draft-07 when its $schema says so: tools.CompileSchema). A document
// that is not JSON or does not compile, is over tools.MaxSchemaSize (it is
// in every request's system prompt) or has a $ref cycle that never
// descends into the value is a UsageError saying why.
func ParseAnswerSchema(doc []byte) (*AnswerSchema, error) {
	resolved, err := tools.CompileSchema(doc)
	if err != nil {
		return nil, usagef("--json-schema: %w", err)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, doc); err != nil {
		return nil, usagef("--json-schema: %w", err)
	}
	return &AnswerSchema{doc: b.String(), resolved: resolved}, nil
}

// String is the schema, compact JSON.
func (s *AnswerSchema) String() string { return s.doc }

// Check is a loop.AnswerCheckFunc: it returns the answer's JSON value,
// compact, when the answer is one JSON value (white space around it, or
// a ```json fence, is allowed) valid against the schema; otherwise an
// error for the model, the parse error or the schema's first violation.
func (s *AnswerSchema) Check(_ context.Context, answer string) (json.RawMessage, error) {
	text := unfence(answer)
	if text == "" {
		return nil, errors.New("it is empty, not a JSON value")
	}
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		return nil, fmt.Errorf("it is not one JSON value: %v", err)
	}
	if err := s.resolved.Validate(v); err != nil {
		return nil, fmt.Errorf("it does not match the JSON Schema: %s", tools.SchemaMessage(err))
	}
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(text)); err != nil {
		return nil, fmt.Errorf("it is not one JSON value: %v", err)
	}
	return b.Bytes(), nil
}

// prompt is what the system prompt says of the schema.
func (s *AnswerSchema) prompt() string {
	return "\n\n# Final answer\n\nYour final answer (the message that ends your turn, after any tool calls) must be exactly one JSON " +
		"value valid against this JSON Schema, with nothing before or after it:\n\n" + s.doc
}

// unfence returns answer without the white space around it and, when it
// is one fenced code block (```json or ```), without the fence.
func unfence(answer string) string {
	text := strings.TrimSpace(answer)
	if !strings.HasPrefix(text, "```") || !strings.HasSuffix(text, "```") || len(text) < 6 {
		return text
	}
	inner := strings.TrimSuffix(text, "```")
	first, rest, ok := strings.Cut(inner, "\n")
	if !ok || strings.ContainsAny(strings.TrimPrefix(first, "```"), " `") {
		return text
	}
	return strings.TrimSpace(rest)
}
