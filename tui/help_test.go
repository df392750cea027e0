package tui

import (
	"fmt"
	"strings"
	"testing"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/agent-dev/agent/providers/fake"
)

// everyKey is the keymap with every key help can show: background shells
// and vim keys on.
func everyKey() keyMap {
	k := newKeyMap()
	k.shells, k.vim = true, true
	return k
}

// requireEveryKeyShown fails unless each binding of k's full help is on a
// line of screen whole: its key, then its description after it.
func requireEveryKeyShown(t *testing.T, k keyMap, screen string) {
	t.Helper()
	lines := strings.Split(ansi.Strip(screen), "\n")
	for _, g := range k.FullHelp() {
		for _, b := range g {
			h := b.Help()
			found := false
			for _, l := range lines {
				if i := strings.Index(l, h.Key+" "); i >= 0 && strings.Contains(l[i+len(h.Key):], " "+h.Desc) {
					found = true
					break
				}
			}
			if !found {
				t.Errorf("%q %q is not shown whole:\n%s", h.Key, h.Desc, screen)
			}
		}
	}
}

func TestFullHelpFitsTheWidth(t *testing.T) {
	for _, width := range []int{120, 80, 60} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			lines := fullHelpLines(help.Styles{}, everyKey().FullHelp(), width)
			out := strings.Join(lines, "\n")
			requireFits(t, out, width)
			requireEveryKeyShown(t, everyKey(), out)
			if width != 60 {
				requireGolden(t, fmt.Sprintf("help_full_%d", width), out)
			}
		})
	}
}

// TestFullHelpCutsOnlyAColumnWiderThanTheScreen: on a very narrow screen
// each column is a band of its own, and only what passes the edge is cut.
func TestFullHelpCutsOnlyAColumnWiderThanTheScreen(t *testing.T) {
	lines := fullHelpLines(help.Styles{}, everyKey().FullHelp(), 24)
	requireFits(t, strings.Join(lines, "\n"), 24)
	if !strings.Contains(strings.Join(lines, "\n"), "pgup scroll up") {
		t.Errorf("a narrow column was cut:\n%s", strings.Join(lines, "\n"))
	}
}

// A terminal too short for ?'s panel says where the keys are.
func TestHelpPanelTooTallSaysWhereTheKeysAre(t *testing.T) {
	cfg := config(t, fake.New(), t.TempDir(), nil)
	on := true
	cfg.Vim = &on
	d := newDriver(t, cfg)
	d.update(tea.WindowSizeMsg{Width: 80, Height: 24})
	d.key("?")
	d.untilShows("/help lists them in the conversation")
	requireFits(t, d.screen(), 80)
}

// The ? panel on the screen, at 120 and 80 columns, 30 rows (the golden
// screens' height) and more: every key whole, vim keys and Ctrl+B included.
func TestHelpPanelOnTheScreenShowsEveryKey(t *testing.T) {
	for _, width := range []int{120, 80} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			cfg := config(t, fake.New(), t.TempDir(), nil)
			on := true
			cfg.Vim = &on
			cfg.Shells = newFakeShells()
			d := newDriver(t, cfg)
			d.update(tea.WindowSizeMsg{Width: width, Height: 30})
			d.key("?")
			if !d.m.help.ShowAll {
				t.Fatal("? did not open the help")
			}
			screen := d.screen()
			requireFits(t, screen, width)
			requireEveryKeyShown(t, d.m.keys, screen)
		})
	}
}
