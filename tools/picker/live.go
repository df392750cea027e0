package picker

import "sync/atomic"

// Current returns c itself: a fixed Catalog is its own source.
func (c *Catalog) Current() *Catalog { return c }

// Live holds the current Catalog of a run whose tools change (MCP servers
// start, die, change their lists). Each change publishes a new immutable
// Catalog; readers take a snapshot with Current. Picks are names kept by
// the conversation, so they survive a change; a picked tool that is gone
// is simply not offered. Live is safe for concurrent use.
type Live struct {
	cur atomic.Pointer[Catalog]
}

// NewLive returns a Live whose current catalog is c.
func NewLive(c *Catalog) *Live {
	l := &Live{}
	l.cur.Store(c)
	return l
}

// Current returns the catalog now in force.
func (l *Live) Current() *Catalog { return l.cur.Load() }

// Set makes c the current catalog.
func (l *Live) Set(c *Catalog) { l.cur.Store(c) }
