package host_test

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/providers/fake"
)

// The config file's status_line gets Claude Code's status line JSON, field
// by field, and wins over a .claude/settings.json statusLine.
func TestTheConfigsStatusLineGetsClaudeCodesJSON(t *testing.T) {
	f := newFixture(t, fake.New(), `status_line = { command = "cat > status.json; printf 'mine\nsecond'", padding = 3 }`+"\n")
	write(t, f.path(".claude/settings.json"), `{"statusLine": {"type": "command", "command": "echo theirs"}}`)
	s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeAuto, Trust: host.Trust{Hooks: true}})
	if ok, padding := s.StatusLine(); !ok || padding != 3 {
		t.Fatalf("status line %v, padding %d", ok, padding)
	}
	line, err := s.RunStatusLine(t.Context(), host.StatusLineInput{SessionID: s.ID(), Model: "claude-sonnet-4-5", CostUSD: 0.5,
		InputTokens: 1200, OutputTokens: 300, ContextTokens: 50_000, ContextWindow: 200_000,
		LastInput: 900, LastOutput: 100, LastCacheRead: 800, LastCacheWrite: 50,
		Duration: 90 * time.Second, APIDuration: 12 * time.Second, LinesAdded: 7, LinesRemoved: 2})
	if err != nil || line != "mine" {
		t.Fatalf("line %q, err %v", line, err)
	}
	var in struct {
		Event     string `json:"hook_event_name"`
		SessionID string `json:"session_id"`
		Cwd       string `json:"cwd"`
		Model     struct {
			ID          string `json:"id"`
			DisplayName string `json:"display_name"`
		} `json:"model"`
		Workspace struct {
			CurrentDir string `json:"current_dir"`
			ProjectDir string `json:"project_dir"`
		} `json:"workspace"`
		Version     string `json:"version"`
		OutputStyle struct {
			Name string `json:"name"`
		} `json:"output_style"`
		Cost struct {
			Total        float64 `json:"total_cost_usd"`
			Duration     int64   `json:"total_duration_ms"`
			API          int64   `json:"total_api_duration_ms"`
			LinesAdded   int     `json:"total_lines_added"`
			LinesRemoved int     `json:"total_lines_removed"`
		} `json:"cost"`
		Window struct {
			In        int `json:"total_input_tokens"`
			Out       int `json:"total_output_tokens"`
			Size      int `json:"context_window_size"`
			Used      int `json:"used_percentage"`
			Remaining int `json:"remaining_percentage"`
			Current   struct {
				In    int `json:"input_tokens"`
				Out   int `json:"output_tokens"`
				Write int `json:"cache_creation_input_tokens"`
				Read  int `json:"cache_read_input_tokens"`
			} `json:"current_usage"`
		} `json:"context_window"`
		Exceeds *bool `json:"exceeds_200k_tokens"`
	}
	data, _ := os.ReadFile(f.path("status.json"))
	if err := json.Unmarshal(data, &in); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	w := in.Window
	switch {
	case in.Event != "Status", in.SessionID != s.ID(), in.Cwd != f.dir, in.Workspace.CurrentDir != f.dir, in.Workspace.ProjectDir != f.dir:
		t.Errorf("session and directories: %s", data)
	case in.Model.ID != "claude-sonnet-4-5", in.Model.DisplayName == "", in.Version == "", in.OutputStyle.Name != "default":
		t.Errorf("model and version: %s", data)
	case in.Cost.Total != 0.5, in.Cost.Duration != 90_000, in.Cost.API != 12_000, in.Cost.LinesAdded != 7, in.Cost.LinesRemoved != 2:
		t.Errorf("cost: %s", data)
	case w.In != 1200, w.Out != 300, w.Size != 200_000, w.Used != 25, w.Remaining != 75:
		t.Errorf("context window: %s", data)
	case w.Current.In != 900, w.Current.Out != 100, w.Current.Read != 800, w.Current.Write != 50:
		t.Errorf("current usage: %s", data)
	case in.Exceeds == nil || *in.Exceeds:
		t.Errorf("exceeds_200k_tokens: %s", data)
	}
}
