package mcp

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"sync"
	"sync/atomic"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-dev/agent/tools"
)

// newClient is the SDK client of s: it declares the client capabilities
// the agent has (roots: Options.Roots; elicitation in form mode, answered
// through Options.Elicit or declined without it, and in URL mode with
// Options.ElicitURL), routes progress
// notifications to the call that asked for them, and lists the tools,
// prompts and resources again when the server says they changed. ctx is
// the server's (the manager's Start context).
func (s *server) newClient(ctx context.Context) *sdk.Client {
	caps := &sdk.ClientCapabilities{Elicitation: &sdk.ElicitationCapabilities{Form: &sdk.FormElicitationCapabilities{}}}
	if s.m.opts.Elicit != nil && s.m.opts.ElicitURL {
		caps.Elicitation.URL = &sdk.URLElicitationCapabilities{}
	}
	if len(s.m.opts.Roots) > 0 {
		caps.RootsV2 = &sdk.RootCapabilities{}
	}
	refresh := func(what func(context.Context) error) {
		if !s.m.beginRefresh() {
			return
		}
		go func() {
			defer s.m.endRefresh()
			s.refresh(ctx, what)
		}()
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "agent", Version: s.m.opts.Version}, &sdk.ClientOptions{
		Capabilities:               caps,
		ToolListChangedHandler:     func(context.Context, *sdk.ToolListChangedRequest) { refresh(s.list) },
		PromptListChangedHandler:   func(context.Context, *sdk.PromptListChangedRequest) { refresh(s.listPrompts) },
		ResourceListChangedHandler: func(context.Context, *sdk.ResourceListChangedRequest) { refresh(s.listResources) },
		ElicitationHandler:         s.elicit,
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			s.m.progress.deliver(req.Params)
		},
	})
	for _, dir := range s.m.opts.Roots {
		client.AddRoots(&sdk.Root{URI: fileURI(dir), Name: filepath.Base(dir)})
	}
	return client
}

// fileURI is the file:// URI of the absolute directory dir.
func fileURI(dir string) string {
	p := filepath.ToSlash(dir)
	if len(p) > 1 && p[1] == ':' { // a Windows drive
		p = "/" + p
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// progressRoutes sends each progress notification to the call whose
// progressToken it carries. It is safe for concurrent use.
type progressRoutes struct {
	next   atomic.Int64
	mu     sync.Mutex
	routes map[string]func(tools.Progress)
}

// add registers report under a new token and returns the token and a
// function that removes it.
func (p *progressRoutes) add(server string, report func(tools.Progress)) (token string, remove func()) {
	token = fmt.Sprintf("agent-%s-%d", server, p.next.Add(1))
	p.mu.Lock()
	if p.routes == nil {
		p.routes = map[string]func(tools.Progress){}
	}
	p.routes[token] = report
	p.mu.Unlock()
	return token, func() {
		p.mu.Lock()
		delete(p.routes, token)
		p.mu.Unlock()
	}
}

// deliver hands a notification to its call, when it still runs.
func (p *progressRoutes) deliver(n *sdk.ProgressNotificationParams) {
	if n == nil {
		return
	}
	token, ok := n.ProgressToken.(string)
	if !ok {
		return
	}
	p.mu.Lock()
	report := p.routes[token]
	p.mu.Unlock()
	if report != nil {
		report(tools.Progress{Text: ProgressText(n.Progress, n.Total, n.Message)})
	}
}

// ProgressText is how a progress notification reads: its message, with
// "progress/total" before it when the total is known ("3/10 Processing
// step 3"); without a message, "progress 3/10" (or "progress 3").
func ProgressText(progress, total float64, message string) string {
	count := fmt.Sprintf("%g", progress)
	if total > 0 {
		count += fmt.Sprintf("/%g", total)
	}
	switch {
	case message == "":
		return "progress " + count
	case total > 0:
		return count + " " + message
	}
	return message
}
