package tui

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agent-dev/agent/providers/fake"
)

// The person's status line shows under the status bar with its colours,
// runs again after each turn with the session's state, and cannot move
// the cursor or set the terminal's title.
func TestStatusLineShowsAndRefreshes(t *testing.T) {
	srv := fake.New(fake.Text("ok"))
	cfg := config(t, srv, t.TempDir(), nil)
	var runs atomic.Int32
	cfg.StatusLine = func(_ context.Context, st StatusState) (string, error) {
		n := runs.Add(1)
		if n == 1 {
			return "\x1b[32mON-MAIN\x1b[0m \x1b]0;pwned\x07\x1b[2Jplain\nsecond line", nil
		}
		return "TURNS-" + st.Model, nil
	}
	cfg.StatusLinePadding = 2
	d := newDriver(t, cfg)
	d.untilShows("ON-MAIN plain")
	view := d.m.View().Content
	if strings.Contains(view, "pwned") || strings.Contains(view, "\x1b[2J") || strings.Contains(view, "second line") {
		t.Errorf("the status line kept what it must not:\n%q", view)
	}
	if !strings.Contains(view, "\x1b[32mON-MAIN") {
		t.Errorf("the status line lost its colour")
	}
	d.typeAndSend("hi")
	d.untilShows("TURNS-scripted-model")
}

func TestSanitizeStatusLine(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                    "plain\x1b[m",
		"\x1b[1;31mred\x1b[m":      "\x1b[1;31mred\x1b[m\x1b[m",
		"a\x1b[Hb\x07c\td":         "abcd\x1b[m",
		"\x1b]8;;http://x\x07link": "link\x1b[m",
		"one\r\ntwo":               "one\x1b[m",
		// Sequences that end in m but are no colour: xterm's
		// modifyOtherKeys (which changes what the keys send), a private
		// mode, and one with an intermediate byte.
		"\x1b[>4;2mkeys":    "keys\x1b[m",
		"\x1b[?1049mscreen": "screen\x1b[m",
		"\x1b[1 mspace":     "space\x1b[m",
		"\x1b[38:5:208mo":   "\x1b[38:5:208mo\x1b[m",
	} {
		if got := sanitizeStatusLine(in); got != want {
			t.Errorf("sanitizeStatusLine(%q) = %q, want %q", in, got, want)
		}
	}
}
