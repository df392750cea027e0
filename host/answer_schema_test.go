package host_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers/fake"
)

const countSchema = `{"type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"], "additionalProperties": false}`

func mustSchema(t *testing.T, doc string) *host.AnswerSchema {
	t.Helper()
	s, err := host.ParseAnswerSchema([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestAnswerSchemaChecksAnswers(t *testing.T) {
	s := mustSchema(t, countSchema)
	tests := []struct {
		name, answer string
		value        string // "" when rejected
		problem      string
	}{
		{"plain", `{"count": 3}`, `{"count":3}`, ""},
		{"white space", "\n  {\"count\": 3}\n\n", `{"count":3}`, ""},
		{"json fence", "```json\n{\"count\": 3}\n```", `{"count":3}`, ""},
		{"bare fence", "```\n{\"count\": 3}\n```\n", `{"count":3}`, ""},
		{"prose", `There are 3: {"count": 3}`, "", "not one JSON value"},
		{"two values", `{"count": 3} {"count": 4}`, "", "not one JSON value"},
		{"empty", "  ", "", "empty"},
		{"wrong type", `{"count": "three"}`, "", "count"},
		{"missing property", `{}`, "", "count"},
		{"extra property", `{"count": 3, "more": true}`, "", "more"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := s.Check(t.Context(), tt.answer)
			if tt.value != "" {
				if err != nil || string(v) != tt.value {
					t.Errorf("Check(%q) = %s, %v; want %s", tt.answer, v, err, tt.value)
				}
				return
			}
			if v != nil || err == nil || !strings.Contains(err.Error(), tt.problem) {
				t.Errorf("Check(%q) = %s, %v; want a rejection mentioning %q", tt.answer, v, err, tt.problem)
			}
		})
	}
}

func TestAnAnswerSchemaThatDoesNotCompileIsAUsageError(t *testing.T) {
	for _, doc := range []string{`{"type": "objekt"}`, `{"type": "object",`, `{"$ref": "#/$defs/missing"}`} {
		_, err := host.ParseAnswerSchema([]byte(doc))
		var ue host.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--json-schema") {
			t.Errorf("ParseAnswerSchema(%s) = %v, want a usage error naming --json-schema", doc, err)
		}
	}
}

// A session opened with a schema tells the model in every request's system
// prompt (the same text each time, so the prompt cache holds), checks its
// answers, and corrects it structured_output_retries times at most.
func TestASessionWithAnAnswerSchema(t *testing.T) {
	model := fake.New(fake.Text("three"), fake.Text(`{"count": 3}`), fake.Text("a"), fake.Text("b"), fake.Text("never asked"))
	f := newFixture(t, model, "structured_output_retries = 1\n")
	s := f.open(t, host.Request{Schema: mustSchema(t, countSchema)}, host.FrontEnd{Mode: host.ModeAuto})

	r := runTurn(t, s, "how many?")
	if r.done.Reason != loop.StopAnswered || string(r.done.Structured) != `{"count":3}` {
		t.Fatalf("first turn: %+v", r.done)
	}
	reqs := model.Requests()
	if len(reqs) != 2 || reqs[0].System != reqs[1].System || !strings.HasSuffix(reqs[0].System, `"required":["count"],"additionalProperties":false}`) {
		t.Fatalf("%d requests; the system prompt should end with the schema, the same in each: %q", len(reqs), reqs[0].System)
	}
	if strings.Contains(s.Conversation().System(), "additionalProperties") {
		t.Error("the schema was stored in the session's system prompt; it is the run's, not the session's")
	}

	r = runTurn(t, s, "and now?")
	if r.done.Reason != loop.StopStructuredOutput || r.done.Structured != nil || r.done.Answer != "b" {
		t.Errorf("second turn, never valid: %+v", r.done)
	}
	if n := len(model.Requests()); n != 4 {
		t.Errorf("%d requests in all, want 4 (one correction in the second turn)", n)
	}
}

func TestAStructuredOutputRetriesBelowZeroIsAUsageError(t *testing.T) {
	tmp := t.TempDir()
	config := tmp + "/config.toml"
	write(t, config, "structured_output_retries = -1\n")
	h, err := host.Open(t.Context(), host.Config{Flags: host.Flags{Model: "m", BaseURL: "http://127.0.0.1:1/v1", ConfigPath: config,
		DB: tmp + "/a.db", MaxRetries: -1}, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	_, err = h.Settings()
	var ue host.UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "structured_output_retries") {
		t.Errorf("the settings' error is %v, want a usage error naming structured_output_retries", err)
	}
}
