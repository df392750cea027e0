package cmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/loop"
)

func TestJSONSchemaIsTheSchemaOrAFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "schema.json")
	if err := os.WriteFile(file, []byte(`{"type": "array"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, value := range []string{`{"type": "array"}`, ` {"type":"array"}`, file} {
		s, err := answerSchema(value)
		if err != nil || s.String() != `{"type":"array"}` {
			t.Errorf("--json-schema %s: %v, %v", value, s, err)
		}
	}
	if s, err := answerSchema(""); s != nil || err != nil {
		t.Errorf("no --json-schema: %v, %v", s, err)
	}
	for value, want := range map[string]string{
		`{"type": "arrray"}`:                      "arrray",
		`{"type": `:                               "not JSON",
		filepath.Join(t.TempDir(), "none.json"):   "none.json",
		`not a file and not a schema {"type": 1}`: "no such file",
	} {
		_, err := answerSchema(value)
		if exitCode(err) != ExitUsage || !strings.Contains(err.Error(), "--json-schema") || !strings.Contains(err.Error(), want) {
			t.Errorf("--json-schema %s: %v (exit %d), want a usage error mentioning %q", value, err, exitCode(err), want)
		}
	}
}

// The Claude Agent SDK passes its outputFormat's schema as one argument,
// --json-schema=JSON.
func TestJSONSchemaFlagAsTheSDKPassesIt(t *testing.T) {
	o, err := parse(t, Streams{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, `--json-schema={"type":"object"}`, "--export-session", "s.json", "-p", "hi")
	if err != nil || o.JSONSchema != `{"type":"object"}` || o.ExportSession != "s.json" {
		t.Errorf("options %+v, %v", o, err)
	}
}

func TestAnswersThatNeverMatchedExitWithCode5(t *testing.T) {
	err := turnEnd(loop.Done{Reason: loop.StopStructuredOutput, Err: errors.New("the answer was rejected after 3 corrections")})
	if exitCode(err) != ExitStructuredOutput || ExitStructuredOutput != 5 || !strings.Contains(err.Error(), "rejected") {
		t.Errorf("exit %d, %v", exitCode(err), err)
	}
}

func TestTextOutputWithASchemaIsTheValueAlone(t *testing.T) {
	var out, errOut bytes.Buffer
	p := newPrinter(formatText, &out, &errOut, false)
	p.schema = true
	if err := p.finish(loop.Done{Answer: "```json\n{\"n\": 1}\n```", Reason: loop.StopAnswered, Structured: json.RawMessage(`{"n":1}`)}, "s", "m"); err != nil {
		t.Fatal(err)
	}
	if out.String() != "{\"n\":1}\n" || errOut.Len() != 0 {
		t.Errorf("stdout %q, stderr %q; want the value alone", out.String(), errOut.String())
	}
	out.Reset()
	if err := p.finish(loop.Done{Answer: "Stopped after 2 steps.", Reason: loop.StopMaxSteps}, "s", "m"); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 || errOut.String() != "Stopped after 2 steps.\n" {
		t.Errorf("without a value: stdout %q, stderr %q; want the answer on stderr", out.String(), errOut.String())
	}
}

func TestJSONResultCarriesTheValueAndTheSubtype(t *testing.T) {
	for _, tt := range []struct {
		done    loop.Done
		subtype string
		isError bool
	}{
		{loop.Done{Answer: `{"n":1}`, Reason: loop.StopAnswered, Structured: json.RawMessage(`{"n":1}`)}, "success", false},
		{loop.Done{Answer: "one", Reason: loop.StopStructuredOutput, Err: errors.New("rejected")}, "error_max_structured_output_retries", true},
		{loop.Done{Answer: "Stopped.", Reason: loop.StopMaxSteps}, "error_max_turns", true},
	} {
		var out bytes.Buffer
		if err := newPrinter(formatJSON, &out, &bytes.Buffer{}, false).finish(tt.done, "s", "m"); err != nil {
			t.Fatal(err)
		}
		var res struct {
			Subtype    string          `json:"subtype"`
			IsError    bool            `json:"is_error"`
			Structured json.RawMessage `json:"structured_output"`
		}
		if err := json.Unmarshal(out.Bytes(), &res); err != nil {
			t.Fatal(err)
		}
		if res.Subtype != tt.subtype || res.IsError != tt.isError || string(res.Structured) != string(tt.done.Structured) {
			t.Errorf("%s: result %s", tt.done.Reason, out.String())
		}
	}
}
