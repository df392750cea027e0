//go:build linux

package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

func TestReadEditVerifyInTheInterface(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	e2e.WriteFile(t, dir, "greet.go", "package main\n\nfunc greet() string { return \"hello\" }\n")
	srv := scripted.New(t,
		scripted.Text("Hello."),
		scripted.ToolCalls(scripted.Call{ID: "r", Name: "read_file", Arguments: `{"path":"greet.go"}`}),
		scripted.ToolCalls(scripted.Call{ID: "e", Name: "edit_file", Arguments: `{"path":"greet.go","old_string":"\"hello\"","new_string":"\"howdy\""}`}),
		scripted.ToolCalls(scripted.Call{ID: "v", Name: "read_file", Arguments: `{"path":"greet.go"}`}),
		scripted.Text("It says howdy now."),
		scripted.Text("Noted: it says hello again."),
	)
	s := e2e.StartTmux(t, dir, nil, []string{"--base-url", srv.URL(), "--model", "scripted-model", "--db", filepath.Join(t.TempDir(), "a.db")})
	s.WaitFor("Ask about this repository")
	s.Send("hi")
	s.WaitFor("Hello.")
	s.Idle()
	s.Send("make greet say howdy")
	screen := s.WaitFor("Allow this change to greet.go?")
	if !strings.Contains(screen, `+func greet() string { return "howdy" }`) {
		t.Errorf("the question should show the diff before the change:\n%s", screen)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "greet.go")); strings.Contains(string(data), "howdy") {
		t.Fatal("the file changed before the edit was approved")
	}
	s.AllowOnce()
	s.WaitFor("It says howdy now.")
	s.Idle() // the answer shows before the turn ends
	if data, _ := os.ReadFile(filepath.Join(dir, "greet.go")); !strings.Contains(string(data), "howdy") {
		t.Errorf("greet.go was not edited: %s", data)
	}
	s.Send("/undo")
	screen = s.WaitFor("restored greet.go")
	if data, _ := os.ReadFile(filepath.Join(dir, "greet.go")); !strings.Contains(string(data), `"hello"`) {
		t.Errorf("/undo did not restore greet.go: %s", data)
	}
	if !strings.Contains(screen, "Undid prompt 2") {
		t.Errorf("/undo names another prompt than the second:\n%s", screen)
	}
	// The model is told, with the next prompt, that its edit is gone.
	s.Send("what does greet say?")
	s.WaitFor("Noted: it says hello again.")
	reqs := srv.Requests()
	if body := string(reqs[len(reqs)-1].Body); !strings.Contains(body, "The person ran /undo") || !strings.Contains(body, "prompt 2") || !strings.Contains(body, "greet.go") {
		t.Errorf("the model was not told of the undo:\n%s", body)
	}
	s.Quit()
}
