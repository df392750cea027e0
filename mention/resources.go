package mention

import (
	"context"
	"fmt"
	"strings"

	"github.com/agent-dev/agent/tools"
)

// Resources are the MCP servers' resources a prompt may mention as
// @SERVER:URI (the MCP client, tools/mcp, adapted by the caller).
type Resources interface {
	// Names are the resources to complete, each "SERVER:URI"; quick, no
	// I/O (a snapshot of the lists).
	Names() []string
	// Read returns a resource's text and images; an error when server is
	// not running or the read failed.
	Read(ctx context.Context, server, uri string) (text string, images []tools.Image, err error)
	// Server reports whether name is a running server's.
	Server(name string) bool
}

// UseResources makes @SERVER:URI mentions attach resources and
// completion offer them; nil stops it.
func (m *Mentions) UseResources(r Resources) {
	m.mu.Lock()
	m.res = r
	m.mu.Unlock()
}

func (m *Mentions) resources() Resources {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.res
}

// resourceOf splits a mention of a resource, "SERVER:URI" with SERVER a
// running server's name, without or with its trailing punctuation; ok is
// false for anything else (a file path with a colon stays a path).
func resourceOf(r Resources, p string) (server, uri string, ok bool) {
	if r == nil {
		return "", "", false
	}
	server, uri, ok = strings.Cut(p, ":")
	if !ok || uri == "" || !r.Server(server) {
		return "", "", false
	}
	return server, uri, true
}

// attachResource reads a mentioned resource; text is the attachment's
// body, or why it was not attached when ok is false.
func attachResource(ctx context.Context, r Resources, server, uri string, limit int) (text string, imgs []tools.Image, cut, ok bool) {
	text, imgs, err := r.Read(ctx, server, uri)
	if err != nil {
		return err.Error(), nil, false, false
	}
	if len(text) > limit {
		text = text[:limit]
		if i := strings.LastIndexByte(text, '\n'); i > 0 {
			text = text[:i+1]
		}
		text += fmt.Sprintf("(attachment cut at %d KiB; mcp_resource reads it whole)\n", limit>>10)
		cut = true
	}
	return text, imgs, cut, true
}

// completeResources are the resources matching query, scored as paths.
func completeResources(r Resources, query string) (names []string, scores []int) {
	if r == nil || query == "" {
		return nil, nil
	}
	lq := strings.ToLower(query)
	for _, n := range r.Names() {
		if s, ok := score(strings.ToLower(n), lq); ok {
			names, scores = append(names, n), append(scores, s)
		}
	}
	return names, scores
}
