package headless

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

const countSchema = `{"type":"object","properties":{"count":{"type":"integer"}},"required":["count"],"additionalProperties":false}`

// corrections are the user messages of the requests that send an answer
// back: each request's last message when it is one.
func corrections(reqs []scripted.Request) []string {
	var out []string
	for _, r := range reqs {
		if last := e2e.LastUserText(r); strings.Contains(last, "was not accepted") {
			out = append(out, last)
		}
	}
	return out
}

// A model that first answers with prose, then with the object in a fence:
// one correction carrying the validation error, then stdout is the object
// alone.
func TestJSONSchemaAnswerIsCorrectedOnceThenPrintedAlone(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t,
		scripted.Text("There are 3 Go files."),
		scripted.Text("```json\n{\"count\": 3}\n```"),
	)
	schemaFile := filepath.Join(t.TempDir(), "count.schema.json")
	e2e.WriteFile(t, filepath.Dir(schemaFile), filepath.Base(schemaFile), countSchema)
	res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Args: e2e.AgentArgs(srv, "-p", "--json-schema", schemaFile, "how many Go files?")})
	if res.Code != 0 || res.Stdout != "{\"count\":3}\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q; want 0 and the object alone", res.Code, res.Stdout, res.Stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if system := reqs[0].Chat.Messages[0]; system.Role != "system" || !strings.Contains(system.Text(), countSchema) {
		t.Errorf("the system prompt does not carry the schema: %q", system.Text())
	}
	if got := corrections(reqs); len(got) != 1 || !strings.Contains(got[0], "not one JSON value") {
		t.Errorf("corrections %q, want one carrying the validation error", got)
	}
}

// A model that never complies: the correction names the schema's
// violation, and after structured_output_retries corrections the run
// exits 5 with the json result's subtype.
func TestJSONSchemaNeverMatchedExitsWithCode5(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t,
		scripted.Text(`{"count": "three"}`),
		scripted.Text(`{"count": "three"}`),
		scripted.Text("never asked"),
	)
	config := filepath.Join(t.TempDir(), "config.toml")
	e2e.WriteFile(t, filepath.Dir(config), "config.toml", "structured_output_retries = 1\n")
	res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Args: e2e.AgentArgs(srv, "-p", "--config", config, "--output-format", "json",
		"--json-schema", countSchema, "how many?")})
	var result struct {
		Subtype    string          `json:"subtype"`
		IsError    bool            `json:"is_error"`
		StopReason string          `json:"stop_reason"`
		Error      string          `json:"error"`
		Structured json.RawMessage `json:"structured_output"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &result); err != nil {
		t.Fatalf("stdout %q: %v", res.Stdout, err)
	}
	if res.Code != 5 || result.Subtype != "error_max_structured_output_retries" || !result.IsError ||
		result.StopReason != "structured_output_retries" || result.Structured != nil || !strings.Contains(result.Error, "count") {
		t.Errorf("exit %d, result %s, stderr %q", res.Code, res.Stdout, res.Stderr)
	}
	reqs := srv.Requests()
	if got := corrections(reqs); len(reqs) != 2 || len(got) != 1 || !strings.Contains(got[0], `want "integer"`) {
		t.Errorf("%d requests, corrections %q; want one correction naming the violation", len(reqs), got)
	}
}

func TestJSONSchemaThatDoesNotCompileIsAUsageError(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.Text("never asked"))
	res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Args: e2e.AgentArgs(srv, "-p", "--json-schema", `{"type": "integr"}`, "hi")})
	if res.Code != 2 || !strings.Contains(res.Stderr, "--json-schema") || !strings.Contains(res.Stderr, "integr") || len(srv.Requests()) != 0 {
		t.Errorf("exit %d, stderr %q, %d requests; want 2 and a message naming the bad type, no request", res.Code, res.Stderr, len(srv.Requests()))
	}
}
