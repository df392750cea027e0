package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/agent-dev/agent/providers/fake"
)

// /worktrees shows what the front-end lists, read outside Update; without
// a list it says how worktrees come about.
func TestWorktreesCommandShowsTheList(t *testing.T) {
	cfg := config(t, fake.New(), t.TempDir(), nil)
	d := newDriver(t, cfg)
	d.typeAndSend("/worktrees")
	d.untilShows("agent --worktree NAME works in one")

	cfg = config(t, fake.New(), t.TempDir(), nil)
	cfg.Worktrees = func(context.Context) string {
		return "NAME  BRANCH     STATE  SESSION  PATH\nfix   agent/fix  ahead (2 commits)  3f2a  /d/fix"
	}
	d = newDriver(t, cfg)
	d.typeAndSend("/worktrees")
	d.untilShows("agent/fix")
	if s := d.screen(); !strings.Contains(s, "ahead (2 commits)") {
		t.Errorf("the list is not shown:\n%s", s)
	}
}
