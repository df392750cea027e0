//go:build linux

package tui

import (
	"encoding/base64"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// A pasted path of an image file (as a terminal pastes a dragged file:
// quoted, outside the working directory) attaches the image: the input
// shows its tag, and the prompt sent carries the picture as an image_url
// data URL to a model that takes images.
func TestPastedImagePathAttachesTheImage(t *testing.T) {
	t.Parallel()
	shots := t.TempDir()
	data := e2e.PNGFile(t, shots, "Screen Shot.png", 16, 9)
	srv := scripted.New(t, scripted.Text("A small grey picture."))
	s := e2e.StartTmux(t, t.TempDir(), nil, []string{"--base-url", srv.URL(), "--model", "gpt-4.1", "--db", filepath.Join(t.TempDir(), "a.db")})
	s.WaitFor("Ask about this repository")
	s.Tmux("set-buffer", "-b", "shot", "'"+filepath.Join(shots, "Screen Shot.png")+"'")
	s.Tmux("paste-buffer", "-p", "-b", "shot", "-t", s.Name)
	s.WaitFor("[Image #1]")
	s.Send("what is this?")
	s.WaitFor("A small grey picture.")
	body := string(srv.Requests()[0].Body)
	if !strings.Contains(body, "data:image/png;base64,"+base64.StdEncoding.EncodeToString(data)) || strings.Contains(body, "Screen Shot.png'") {
		t.Errorf("the request lacks the image:\n%.800s", body)
	}
	s.Quit()
}
