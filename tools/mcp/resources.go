package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-dev/agent/media"
	"github.com/agent-dev/agent/tools"
)

// maxListed bounds the resources kept of one server for completion and
// the resource tool's listing; a server with more offers its first ones.
const maxListed = 500

// Resource is a resource a server lists.
type Resource struct {
	Server, URI, Name, MIMEType, Description string
	// Size is its size in bytes when the server says, else 0.
	Size int64
}

// Resources returns the resources the running servers list, in server
// order, each server's as listed; a snapshot (the lists are fetched when a
// server starts and when it says its list changed).
func (m *Manager) Resources() []Resource {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Resource
	for _, s := range m.servers {
		if s.state != StateRunning {
			continue
		}
		for _, r := range s.resources {
			desc := r.Description
			if desc == "" {
				desc = r.Title
			}
			out = append(out, Resource{Server: s.cfg.Name, URI: r.URI, Name: r.Name, MIMEType: r.MIMEType, Description: desc, Size: r.Size})
		}
	}
	return out
}

// Contents is what a resource holds for the model: its text parts (a
// binary part described by type and size) and its images.
type Contents struct {
	Text   string
	Images []tools.Image
}

// ErrNoServer is returned for a server that is not configured or not
// running.
var ErrNoServer = errors.New("no running MCP server of that name")

// ReadResource reads the resource uri of server (resources/read), bounded
// by the server's timeout, once the server runs (one still starting is
// waited for, as long as its start may take, or until ctx is done). Text is capped at MaxResultBytes; images the
// agent reads (PNG, JPEG, GIF, WebP) are scaled to media.Default. Errors:
// ErrNoServer, or the server's.
func (m *Manager) ReadResource(ctx context.Context, name, uri string) (Contents, error) {
	m.awaitStarting(ctx, func(server string) bool { return server == name }) // a server still starting is read once it runs
	var cs *sdk.ClientSession
	timeout := DefaultTimeout
	m.mu.Lock()
	for _, o := range m.servers {
		if o.cfg.Name == name && o.state == StateRunning {
			cs, timeout = o.session, o.cfg.Timeout
		}
	}
	m.mu.Unlock()
	if cs == nil {
		return Contents{}, fmt.Errorf("%s: %w", name, ErrNoServer)
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := cs.ReadResource(cctx, &sdk.ReadResourceParams{URI: uri})
	if err != nil {
		return Contents{}, fmt.Errorf("reading %s from the MCP server %s: %w", uri, name, err)
	}
	var out Contents
	var parts []string
	for _, c := range res.Contents {
		switch {
		case c == nil:
		case c.Blob != nil && strings.HasPrefix(c.MIMEType, "image/"):
			if img, err := media.Fit(c.Blob, media.Default); err == nil {
				out.Images = append(out.Images, tools.Image{MediaType: img.MediaType, Data: img.Data})
				parts = append(parts, fmt.Sprintf("[image %d: %s]", len(out.Images), img.Note()))
				continue
			}
			parts = append(parts, fmt.Sprintf("[%s (%s), %d bytes, not shown]", c.URI, c.MIMEType, len(c.Blob)))
		case c.Blob != nil:
			parts = append(parts, fmt.Sprintf("[%s (%s), %d bytes of binary data, not shown]", c.URI, c.MIMEType, len(c.Blob)))
		default:
			parts = append(parts, c.Text)
		}
	}
	out.Text = capText(strings.Join(parts, "\n"))
	return out, nil
}

// listResources fetches the resource list (pages until maxListed) of a
// server that offers resources.
func (s *server) listResources(ctx context.Context) error {
	cs := s.currentSession()
	if cs == nil || cs.InitializeResult() == nil || cs.InitializeResult().Capabilities.Resources == nil {
		return nil
	}
	var all []*sdk.Resource
	for r, err := range cs.Resources(ctx, nil) {
		if err != nil {
			return fmt.Errorf("listing resources: %w", err)
		}
		if all = append(all, r); len(all) >= maxListed {
			break
		}
	}
	s.m.mu.Lock()
	s.resources = all
	s.m.mu.Unlock()
	return nil
}
