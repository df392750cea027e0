package protocols

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// The SDK's outputFormat reaches agent as --json-schema: an answer that
// does not match is corrected, and the result message carries the value
// as structured_output. --export-session (an extra flag) writes the
// session when the protocol's run ends.
func TestClaudeAgentSDKStructuredOutput(t *testing.T) {
	t.Parallel()
	sdk := claudeSDK.module(t)
	srv := scripted.New(t,
		scripted.Text("main.go and go.mod"),
		scripted.Text(`{"files": ["main.go", "go.mod"]}`),
	)
	dir := t.TempDir()
	export := filepath.Join(t.TempDir(), "session.json")
	extra := map[string]any{"base-url": srv.URL(), "model": "scripted-model", "max-retries": "0",
		"db": filepath.Join(t.TempDir(), "a.db"), "export-session": export}
	env := []string{"SDK_MODULE=" + sdk, "AGENT_BIN=" + e2e.Agent(t), "AGENT_CWD=" + dir, jsonEnv("AGENT_EXTRA", extra)}
	objs, stderr := runNode(t, dir, env, "sdk/structured.mjs")

	results := sdkMessages(scenario(t, objs, "structured"), "result")
	if len(results) != 1 {
		t.Fatalf("results %v\nstderr:\n%s", results, stderr)
	}
	res := results[0]
	files, _ := res["structured_output"].(map[string]any)["files"].([]any)
	if res["subtype"] != "success" || res["is_error"] != false || len(files) != 2 || files[0] != "main.go" {
		t.Errorf("result %v\nstderr:\n%s", res, stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || !strings.Contains(e2e.LastUserText(reqs[1]), "was not accepted") {
		t.Errorf("%d requests; the second should carry the correction", len(reqs))
	}

	data, err := os.ReadFile(export)
	var exp struct {
		Session struct {
			ID string `json:"id"`
		} `json:"session"`
		Messages []json.RawMessage `json:"messages"`
	}
	if err != nil || json.Unmarshal(data, &exp) != nil || exp.Session.ID != res["session_id"] || len(exp.Messages) != 4 {
		t.Errorf("--export-session: %v, %s", err, data)
	}
}
