package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/agent-dev/agent/providers/fake"
)

// Typing "/" lists every command (there were 12, and 4 were shown), in
// aligned columns; a terminal too short for all of them says how many more
// match.
func TestSlashListsEveryCommand(t *testing.T) {
	d := newDriver(t, config(t, fake.New(), t.TempDir(), nil))
	d.key("/")
	s := d.screen()
	for _, c := range builtinCommands() {
		if !strings.Contains(s, "  "+c.name+" ") {
			t.Errorf("the completion lacks %s:\n%s", c.name, s)
		}
	}
	descCol := -1
	for _, l := range strings.Split(s, "\n") {
		for _, c := range builtinCommands() {
			if strings.HasPrefix(strings.TrimSpace(l), c.name+" ") {
				col := strings.LastIndex(l, c.desc)
				if descCol >= 0 && col != descCol {
					t.Errorf("descriptions are not aligned: %q", l)
				}
				descCol = col
			}
		}
	}
	d.update(tea.WindowSizeMsg{Width: 100, Height: 12})
	s = d.screen()
	if len(strings.Split(s, "\n")) != 12 || !strings.Contains(s, "more") {
		t.Errorf("a short terminal should cut the list and say how many more:\n%s", s)
	}
	d.key("co")
	s = d.screen()
	if !strings.Contains(s, "/compact") || !strings.Contains(s, "/context") || !strings.Contains(s, "/cost") || strings.Contains(s, "/help") {
		t.Errorf("/co should list /compact, /context and /cost only:\n%s", s)
	}
}
