package tui

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agent-dev/agent/providers/fake"
	"github.com/charmbracelet/x/ansi"
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

// A status line command that fails (it timed out, say) takes its line
// away: the built-in status line shows alone, with one warning however
// often it fails; a later success shows a line again.
func TestAFailingStatusLineLeavesTheBuiltInOneAndWarnsOnce(t *testing.T) {
	cfg := config(t, fake.New(fake.Text("one"), fake.Text("two"), fake.Text("three")), t.TempDir(), nil)
	var runs atomic.Int32
	cfg.StatusLine = func(_ context.Context, st StatusState) (string, error) {
		switch runs.Add(1) {
		case 1:
			return "MINE-FIRST", nil
		case 4:
			return "MINE-AGAIN", nil
		}
		return "", errors.New("the command timed out after 5s")
	}
	d := newDriver(t, cfg)
	d.untilShows("MINE-FIRST")
	d.typeAndSend("hi")
	d.until("the line gone and the turn's answer", func(s string) bool {
		return !strings.Contains(s, "MINE-FIRST") && strings.Contains(s, "one") && strings.Contains(s, "timed out")
	})
	if !strings.Contains(d.screen(), "scripted-model") {
		t.Errorf("the built-in status line is gone:\n%s", d.screen())
	}
	d.typeAndSend("again")
	d.until("the third run's end", func(s string) bool {
		return strings.Contains(s, "two") && runs.Load() == 3 && !d.m.sl.running && !d.m.sl.waiting
	})
	d.typeAndSend("once more")
	d.untilShows("MINE-AGAIN")
	if n := strings.Count(d.screen(), "status line command failed"); n != 1 {
		t.Errorf("%d warnings, want 1:\n%s", n, d.screen())
	}
}

// Events closer than 300 ms apart run the command once at the end of the
// interval, with the last state.
func TestTheStatusLineRunsAtMostEvery300ms(t *testing.T) {
	cfg := config(t, fake.New(), t.TempDir(), nil)
	cfg.StatusLine = func(context.Context, StatusState) (string, error) { return "x", nil }
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	m.now = func() time.Time { return now }
	if m.refreshStatusLine() == nil {
		t.Fatal("the first refresh ran nothing")
	}
	m.onStatusLine(statusLineMsg{line: "x"})
	now = now.Add(100 * time.Millisecond)
	tick := m.refreshStatusLine()
	if tick == nil || !m.sl.waiting || m.sl.running {
		t.Fatalf("a refresh 100 ms after a run did not wait: waiting %v running %v", m.sl.waiting, m.sl.running)
	}
	if m.refreshStatusLine() != nil {
		t.Error("a second refresh in the interval set a second timer")
	}
	if m.statusLineDue() == nil || !m.sl.running {
		t.Error("the interval's end ran nothing")
	}
}

// A padding past the width (a repository's statusLine says 2^63-1) is the
// width: the row is blank, not a crash.
func TestStatusLineHugePaddingIsTheWidth(t *testing.T) {
	cfg := config(t, fake.New(), t.TempDir(), nil)
	cfg.StatusLine = func(context.Context, StatusState) (string, error) { return "LINE", nil }
	cfg.StatusLinePadding = math.MaxInt
	d := newDriver(t, cfg)
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("a huge padding panics: %v", r)
			}
		}()
		d.m.onStatusLine(statusLineMsg{line: "LINE"})
		_ = d.screen()
	}()
	if strings.Contains(d.screen(), "LINE") {
		t.Errorf("the line shows past a padding wider than the screen")
	}
}

// A status line command that prints a huge first line (256 KiB of coloured
// text) keeps what any terminal can show of it, not the whole line to cut
// again at every frame.
func TestAHugeStatusLineIsCutOnce(t *testing.T) {
	cfg := config(t, fake.New(), t.TempDir(), nil)
	huge := strings.Repeat("\x1b[31mab\x1b[0m cd ", 256<<10/14)
	cfg.StatusLine = func(context.Context, StatusState) (string, error) { return huge, nil }
	d := newDriver(t, cfg)
	d.untilShows("ab cd ab cd")
	if w, n := ansi.StringWidth(d.m.sl.line), len(d.m.sl.line); w > statusLineMaxWidth || n > 16*statusLineMaxWidth {
		t.Errorf("the status line keeps %d cells (%d bytes) after it came", w, n)
	}
}
