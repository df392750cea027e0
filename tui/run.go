package tui

import (
	"context"
	"fmt"

	tea "charm.land/bubbletea/v2"
)

// Run shows the interface until the person quits or ctx is cancelled. A
// running turn is cancelled on the way out.
func Run(ctx context.Context, cfg Config) error {
	m, err := New(cfg)
	if err != nil {
		return err
	}
	_, err = tea.NewProgram(m, tea.WithContext(ctx)).Run()
	m.cancelTurn()
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("interface: %w", err)
	}
	return nil
}
