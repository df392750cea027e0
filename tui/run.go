package tui

import (
	"context"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"
)

// shutdownWait bounds how long Run waits, after the interface closed, for a
// cancelled turn to stop its tools: the bash tool's grace period between
// SIGTERM and SIGKILL (2 s) and a margin.
const shutdownWait = 5 * time.Second

// Run shows the interface until the person quits or ctx is cancelled
// (SIGINT, SIGTERM, SIGHUP). A running turn is then cancelled and Run waits,
// at most shutdownWait, for the loop to end, so that the commands it started
// are stopped before the process exits.
func Run(ctx context.Context, cfg Config) error {
	m, err := New(cfg)
	if err != nil {
		return err
	}
	_, err = tea.NewProgram(m, tea.WithContext(ctx)).Run()
	m.cancelTurn()
	if ch := m.events; ch != nil {
		timer := time.NewTimer(shutdownWait)
		defer timer.Stop()
	drain:
		for {
			select {
			case _, ok := <-ch:
				if !ok {
					break drain
				}
			case <-timer.C:
				break drain
			}
		}
	}
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("interface: %w", err)
	}
	return nil
}
