//go:build linux

package tui

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// Once a turn ended and the interface has waited idle_notification for
// the next prompt, the Notification hooks whose matcher selects
// idle_prompt hear it (Claude Code's idle notification), once; those
// matching permission_prompt do not.
func TestNotificationHooksHearTheInterfaceWaiting(t *testing.T) {
	t.Parallel()
	dir, data := t.TempDir(), t.TempDir()
	e2e.WriteFile(t, dir, "main.go", "package main\n")
	config := filepath.Join(t.TempDir(), "config.toml")
	heard := filepath.Join(data, "idle.json")
	os.WriteFile(config, []byte(`idle_notification = "20ms"

[[hooks.Notification]]
matcher = "idle_prompt"
command = "cat >> '`+heard+`'; echo 'the idle hook ran' >&2; exit 2"

[[hooks.Notification]]
matcher = "permission_prompt"
command = "touch '`+filepath.Join(data, "permission")+`'"
`), 0o644)
	srv := scripted.New(t, scripted.Text("Done for now."))
	s := e2e.StartTmux(t, dir, nil, []string{"--base-url", srv.URL(), "--model", "scripted-model", "--config", config,
		"--db", filepath.Join(data, "a.db")})
	s.WaitFor("Ask about this repository")
	s.Send("hello")
	s.WaitFor("Done for now.")
	s.WaitFor("the idle hook ran")
	s.Quit()
	b, err := os.ReadFile(heard)
	if err != nil {
		t.Fatal(err)
	}
	var in struct {
		HookEventName    string `json:"hook_event_name"`
		NotificationType string `json:"notification_type"`
		Message          string `json:"message"`
		SessionID        string `json:"session_id"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	n := 0
	for dec.More() {
		if err := dec.Decode(&in); err != nil {
			t.Fatalf("the hook's input %q: %v", b, err)
		}
		n++
	}
	if n != 1 || in.HookEventName != "Notification" || in.NotificationType != "idle_prompt" || in.Message == "" || in.SessionID == "" {
		t.Errorf("the idle hook heard %d times, last %+v", n, in)
	}
	if _, err := os.Stat(filepath.Join(data, "permission")); err == nil {
		t.Errorf("the permission_prompt hook ran: nothing was asked")
	}
}
