package mcp

import (
	"context"
	"fmt"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-dev/agent/tools"
)

// This file is how a server that is still starting costs the prompt cache
// nothing: it is offered by its last known tool list (see
// Options.CacheDir), a call of one of those tools waits for it, and when it
// arrives the tools change only if its real list differs, which the model
// is told in a note (Notes).

// offered are the tools the server offers now: its own while it runs, its
// last known ones while it starts (once its gate passed). m.mu is held.
func (s *server) offered() []*tool {
	switch {
	case s.state == StateRunning:
		return s.tools
	case s.state == StateStarting && s.offerKnown:
		return s.provisional
	}
	return nil
}

// offersResources reports whether mcp_resource is offered for the server:
// it runs and declares resources, or it starts and declared them last
// time. m.mu is held.
func (s *server) offersResources() bool {
	switch {
	case s.state == StateRunning && s.session != nil:
		ir := s.session.InitializeResult()
		return ir != nil && ir.Capabilities.Resources != nil
	case s.state == StateStarting && s.offerKnown && s.known != nil:
		return s.known.Resources
	}
	return false
}

// passGate marks the server's gate passed: its last known tools are
// offered while it starts.
func (s *server) passGate() {
	s.m.mu.Lock()
	s.offerKnown = true
	offered := len(s.provisional) > 0
	s.m.mu.Unlock()
	if offered {
		s.m.changed()
	}
}

// arriveLocked is the server's start done (cs its session): its list is
// kept, and on its first start after the first request, the model is told
// what changed for it (its tools join; or they differ from the list
// offered so far). m.mu is held.
func (s *server) arriveLocked(cs *sdk.ClientSession) {
	first := !s.arrived
	s.arrived = true
	wasOffered := s.wasKnown && s.offerKnown
	before := s.provisional
	s.keepLocked()
	if !first || !s.m.baselined {
		return
	}
	switch {
	case !wasOffered && len(s.tools) > 0:
		s.m.notes = append(s.m.notes, fmt.Sprintf("MCP server %s is running now; its tools are offered from this request on: %s.",
			s.cfg.Name, strings.Join(toolNames(s.tools), ", ")))
	case wasOffered:
		if d := listDiff(before, s.tools); d != "" {
			s.m.notes = append(s.m.notes, fmt.Sprintf("MCP server %s is running now, with tools other than those offered while it started: %s.", s.cfg.Name, d))
		}
	}
}

// keepLocked keeps the server's latest list for its definition, when it
// differs from the one kept. m.mu is held.
func (s *server) keepLocked() {
	k := knownList{Server: s.cfg.Name, Tools: s.listed, Resources: s.offersResources()}
	if k.Tools == nil {
		k.Tools = []*sdk.Tool{}
	}
	if s.known != nil && s.known.Resources == k.Resources && sameList(s.known.Tools, k.Tools) {
		return
	}
	s.known = &k
	s.m.saveKnown(s.cfg, k)
}

// failedToStart tells the model, after the first request, that the tools
// it was offered from the server's last known list are gone.
func (s *server) failedToStart(reason string) {
	s.m.mu.Lock()
	if s.m.baselined && s.wasKnown && s.offerKnown && len(s.provisional) > 0 {
		s.m.notes = append(s.m.notes, fmt.Sprintf("MCP server %s did not start (%s); its tools are no longer offered.", s.cfg.Name, reason))
	}
	s.m.mu.Unlock()
}

// whenStarted waits for the server's start (bounded by its
// StartupTimeout) and returns the running tool named orig; otherwise an
// error result says why there is none. Cancelling ctx stops the wait.
func (s *server) whenStarted(ctx context.Context, orig string) (*tool, tools.Result, error) {
	select {
	case <-s.ready:
	case <-ctx.Done():
		return nil, tools.Result{}, ctx.Err()
	}
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	if s.state != StateRunning {
		why := s.err
		if why == "" {
			why = string(s.state)
		}
		return nil, tools.Errorf("the MCP server %s did not start (%s), so %s cannot run", s.cfg.Name, why, orig), nil
	}
	for _, t := range s.tools {
		if t.orig == orig {
			return t, tools.Result{}, nil
		}
	}
	return nil, tools.Errorf("the MCP server %s started without the tool %s (it had it the last time it ran)", s.cfg.Name, orig), nil
}

// AwaitUnknown returns once every server that Start started and whose
// tool list is not known (it never ran with this definition) runs or
// failed, each bounded by its StartupTimeout, or when ctx is done. A
// front-end that cannot show a tool joining later calls it before its
// first request; servers with a known list never hold it.
func (m *Manager) AwaitUnknown(ctx context.Context) {
	m.await(ctx, func(s *server) bool {
		return s.began && !s.wasKnown // not s.known: its arrival sets it before its tools are offered
	})
}

// awaitStarting waits for the servers that Start started and that are
// still starting, of those match names, each bounded by its own start, or
// until ctx is done: a prompt or a resource is asked of a server as soon as
// it runs.
func (m *Manager) awaitStarting(ctx context.Context, match func(name string) bool) {
	m.await(ctx, func(s *server) bool { return s.began && s.state == StateStarting && match(s.cfg.Name) })
}

// await waits until every server pick chose (under m.mu) is ready, or
// until ctx is done.
func (m *Manager) await(ctx context.Context, pick func(*server) bool) {
	m.mu.Lock()
	var wait []chan struct{}
	for _, s := range m.servers {
		if pick(s) {
			wait = append(wait, s.ready)
		}
	}
	m.mu.Unlock()
	for _, ready := range wait {
		select {
		case <-ready:
		case <-ctx.Done():
			return
		}
	}
}

// Baseline says that a request took the tools as they are: from now on a
// server's arrival that changes them, or a start that fails after its
// tools were offered, becomes a note for the model (Notes).
func (m *Manager) Baseline() {
	m.mu.Lock()
	m.baselined = true
	m.mu.Unlock()
}

// Notes returns what the model has not been told of the servers since
// Baseline (one line each, in an <mcp-servers> block) and forgets it; ""
// when there is nothing. The caller adds it to what the model reads next
// (a tool result, the next prompt), where it is stored, so that the
// prompt cache keeps its prefix.
func (m *Manager) Notes() string {
	m.mu.Lock()
	notes := m.notes
	m.notes = nil
	m.mu.Unlock()
	if len(notes) == 0 {
		return ""
	}
	return "<mcp-servers>\n" + strings.Join(notes, "\n") + "\n</mcp-servers>"
}

func toolNames(ts []*tool) []string {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.name
	}
	return names
}

// listDiff says how the tools now differ from those before: added,
// removed, changed (their description or schema); "" when they do not.
func listDiff(before, now []*tool) string {
	old := map[string]*tool{}
	for _, t := range before {
		old[t.name] = t
	}
	var added, changed []string
	for _, t := range now {
		o, ok := old[t.name]
		delete(old, t.name)
		switch {
		case !ok:
			added = append(added, t.name)
		case o.def.Description != t.def.Description || string(o.def.Schema) != string(t.def.Schema) || o.def.ReadOnly != t.def.ReadOnly:
			changed = append(changed, t.name)
		}
	}
	var removed []string
	for n := range old {
		removed = append(removed, n)
	}
	slices.Sort(removed)
	var parts []string
	for _, p := range []struct {
		what  string
		names []string
	}{{"added", added}, {"removed", removed}, {"changed", changed}} {
		if len(p.names) > 0 {
			parts = append(parts, p.what+" "+strings.Join(p.names, ", "))
		}
	}
	return strings.Join(parts, "; ")
}
