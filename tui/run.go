package tui

import (
	"context"
	"fmt"
	"os"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"golang.org/x/term"

	"github.com/agent-dev/agent/loop"
)

// maxFPS caps Bubble Tea's frame rate, frames a second: its highest.
const maxFPS = 120

// shutdownWait bounds how long Run waits, after the interface closed, for a
// cancelled turn to stop its tools: the bash tool's grace period between
// SIGTERM and SIGKILL (2 s) and a margin.
const shutdownWait = 5 * time.Second

// Run shows the interface until the person quits or ctx is cancelled
// (SIGINT, SIGTERM, SIGHUP). When the person quits, the conversation and
// the command that resumes it are written to cfg.Scrollback. A running turn is then cancelled and Run waits,
// at most shutdownWait, for the loop to end, so that the commands it started
// are stopped before the process exits.
func Run(ctx context.Context, cfg Config) error {
	m, err := New(cfg)
	if err != nil {
		return err
	}
	// lipgloss detected the colour profile of stdout in its package init;
	// letting Bubble Tea detect it again costs a second `tmux info`
	// subprocess inside tmux before the first frame (about 2 ms; more on a
	// loaded machine).
	//
	// Bubble Tea (patched: third_party/bubbletea/PATCH.md) writes a frame
	// when a view was rendered, at most maxFPS a second, and never when
	// nothing happens: no ticker wakes the idle interface. The first frame
	// is written as soon as its view is ready: the model knows the
	// terminal's size before the program starts, so the first view Bubble
	// Tea renders is the whole screen, written at once, not an empty one
	// that would hold the next frame back by 1/maxFPS s. A streaming answer
	// is redrawn at most frameInterval apart whatever the cap
	// (model_events.go); keys echo within a frame.
	if w, h, err := term.GetSize(int(os.Stdout.Fd())); err == nil {
		m.resize(w, h) // Bubble Tea's WindowSizeMsg brings the same size
	}
	_, err = tea.NewProgram(m, tea.WithContext(ctx), tea.WithColorProfile(lipgloss.Writer.Profile),
		tea.WithFPS(maxFPS)).Run()
	m.cancelTurn()
	if w := cfg.Scrollback; w != nil && err == nil && ctx.Err() == nil {
		// The alternate screen is gone: what is written now stays.
		lipgloss.Fprint(w, m.farewell())
	}
	if m.events != nil {
		drain(m.events, shutdownWait)
	}
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("interface: %w", err)
	}
	return nil
}

// drain reads ch until it is closed (the loop has ended and its tools have
// stopped) or limit passes, and reports whether it was closed.
func drain(ch <-chan loop.Event, limit time.Duration) bool {
	timer := time.NewTimer(limit)
	defer timer.Stop()
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return true
			}
		case <-timer.C:
			return false
		}
	}
}
