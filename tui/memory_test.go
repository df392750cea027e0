package tui

import (
	"errors"
	"sync"
	"testing"

	"github.com/agent-dev/agent/providers/fake"
)

// A prompt that starts with "#" is saved to memory and not sent; a
// markdown subheading is sent as typed.
func TestHashPromptIsRememberedNotSent(t *testing.T) {
	srv := fake.New(fake.Text("Sent."))
	cfg := config(t, srv, t.TempDir(), nil)
	var mu sync.Mutex
	var notes []string
	cfg.Remember = func(note string) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		notes = append(notes, note)
		if note == "fail" {
			return "", errors.New("disk full")
		}
		return "/data/memory/p/MEMORY.md", nil
	}
	d := newDriver(t, cfg)
	d.typeAndSend("# the tests need -race")
	d.untilShows("Saved to memory (/data/memory/p/MEMORY.md)")
	d.typeAndSend("#fail")
	d.untilShows("Saving to memory: disk full")
	d.typeAndSend("## not a note")
	d.untilShows("Sent.")
	mu.Lock()
	defer mu.Unlock()
	if len(notes) != 2 || notes[0] != "the tests need -race" {
		t.Errorf("notes %q", notes)
	}
	if reqs := srv.Requests(); len(reqs) != 1 {
		t.Errorf("%d requests, want only the subheading's", len(reqs))
	}
}

// Without a memory (no store), /memory says so and "#" prompts are sent.
func TestMemoryCommandWithoutMemory(t *testing.T) {
	srv := fake.New(fake.Text("Sent."))
	d := newDriver(t, config(t, srv, t.TempDir(), nil))
	d.typeAndSend("/memory")
	d.untilShows("Memory is not kept in this run.")
	d.typeAndSend("# a note")
	d.untilShows("Sent.")
}
