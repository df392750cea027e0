//go:build linux

package tui

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// git runs git in dir as the person would, with an identity and no system
// or user config.
func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=u", "-c", "user.email=u@example.com"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// readAll reads the named files of dir; a missing one reads as "<none>".
func readAll(t *testing.T, dir string, names ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		switch {
		case os.IsNotExist(err):
			out[n] = "<none>"
		case err != nil:
			t.Fatal(err)
		default:
			out[n] = string(b)
		}
	}
	return out
}

// TestRewindInTheInterface is issue 38's interface: in a git repository,
// prompt 1 has the model edit a file and run sed -i on another through
// bash; the person then changes a third file by hand; prompt 2 writes a
// new file. Esc Esc lists both prompts, each marked with the files its
// turn changed; prompt 1's "Restore code" previews the files (the one
// changed by hand named apart) and, restoring all, leaves every file
// byte for byte as it was before prompt 1. /rewind then rewinds the
// conversation to prompt 1: its text is back in the input.
func TestRewindInTheInterface(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	e2e.WriteFile(t, dir, "greet.txt", "hello\nworld\n")
	e2e.WriteFile(t, dir, "list.txt", "alpha\nbeta\ngamma\n")
	e2e.WriteFile(t, dir, "notes.txt", "my notes\n")
	git(t, dir, "init", "-q")
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "start")
	files := []string{"greet.txt", "list.txt", "notes.txt", "new.txt"}
	before := readAll(t, dir, files...)

	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "r", Name: "read_file", Arguments: `{"path":"greet.txt"}`}),
		scripted.ToolCalls(
			scripted.Call{ID: "e", Name: "edit_file", Arguments: `{"path":"greet.txt","old_string":"hello","new_string":"howdy"}`},
			scripted.Call{ID: "s", Name: "bash", Arguments: `{"command":"sed -i 's/beta/BETA/' list.txt"}`},
		),
		scripted.Text("Greeted and listed."),
		scripted.ToolCalls(scripted.Call{ID: "w", Name: "write_file", Arguments: e2e.WriteArgs("new.txt", "brand new\n")}),
		scripted.Text("Wrote new.txt."),
	)
	s := e2e.StartTmux(t, dir, nil, []string{"--base-url", srv.URL(), "--model", "scripted-model", "--permission-mode", "auto",
		"--db", filepath.Join(t.TempDir(), "a.db")})
	s.WaitFor("Ask about this repository")
	s.Send("make greet say howdy and shout beta")
	s.WaitFor("Greeted and listed.")
	s.Idle()
	if got := readAll(t, dir, "greet.txt", "list.txt"); got["greet.txt"] != "howdy\nworld\n" || got["list.txt"] != "alpha\nBETA\ngamma\n" {
		t.Fatalf("prompt 1 did not change the files: %q", got)
	}
	e2e.WriteFile(t, dir, "notes.txt", "my notes, edited by hand\n")
	s.Send("add new.txt")
	s.WaitFor("Wrote new.txt.")
	s.Idle()

	// Typed this fast, the two reach the interface as one Alt+Esc; Esc, then
	// Esc within two seconds, is tui's TestEscEscOnlyOnAnIdleEmptyInput.
	s.Keys("Escape", "Escape")
	screen := s.WaitFor("✎ 1 file    add new.txt")
	for _, want := range []string{"✎ 2 files   make greet say howdy and shout beta", "✎ 1 file    add new.txt"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the list lacks %q:\n%s", want, screen)
		}
	}
	s.Keys("Up", "Enter")
	s.WaitFor("Summarize from here")
	s.Keys("Down", "Down", "Enter") // Restore code
	screen = s.WaitFor("Restoring changes 3 files:")
	for _, want := range []string{"greet.txt  +1 −1", "list.txt   +1 −1", "new.txt    deleted −1",
		"Changed outside the agent since prompt 1:", "notes.txt  +1 −1"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the preview lacks %q:\n%s", want, screen)
		}
	}
	if got := readAll(t, dir, files...); got["new.txt"] != "brand new\n" {
		t.Fatalf("the preview changed the files: %q", got)
	}
	s.Keys("Down", "Enter") // Restore all, those changed outside the agent too
	s.WaitFor("Restored the files to before prompt 1.")
	if got := readAll(t, dir, files...); !maps.Equal(got, before) {
		t.Errorf("after the rewind the files are\n%q\nwant as before prompt 1\n%q", got, before)
	}

	s.Send("/rewind")
	s.WaitFor("✎ 1 file    add new.txt") // the list, not the prompt in the conversation
	s.Keys("Up", "Enter")
	s.WaitFor("Summarize from here")
	s.Keys("Down", "Enter") // Restore conversation
	screen = s.WaitFor("Rewound the conversation to before prompt 1")
	if !strings.Contains(screen, "│ make greet say howdy and shout beta") {
		t.Errorf("the input does not hold prompt 1's text:\n%s", screen)
	}
	if strings.Contains(screen, "Wrote new.txt.") || strings.Contains(screen, "Greeted and listed.") {
		t.Errorf("the rewound conversation still shows what followed prompt 1:\n%s", screen)
	}
	if !strings.Contains(strings.Join(strings.Fields(screen), " "), "is kept as session") {
		t.Errorf("no note says the conversation left is kept:\n%s", screen)
	}
	s.Keys("C-u") // the input empties, and Ctrl+C quits at once
	s.WaitFor("Ask about this repository")
	s.Quit()
}
