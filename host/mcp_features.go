package host

import (
	"context"
	"strings"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/mention"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/mcp"
	"github.com/agent-dev/agent/turn"
)

// mcpResources are the MCP servers' resources as @SERVER:URI mentions.
type mcpResources struct{ m *mcp.Manager }

var _ mention.Resources = mcpResources{}

// Names are the resources listed, "SERVER:URI" each.
func (r mcpResources) Names() []string {
	var out []string
	for _, res := range r.m.Resources() {
		out = append(out, res.Server+":"+res.URI)
	}
	return out
}

// Read reads one resource.
func (r mcpResources) Read(ctx context.Context, server, uri string) (string, []tools.Image, error) {
	c, err := r.m.ReadResource(ctx, server, uri)
	return c.Text, c.Images, err
}

// Server reports whether name is a server's that runs or is starting (a
// read waits for its start).
func (r mcpResources) Server(name string) bool {
	for _, s := range r.m.Status() {
		if s.Name == name && (s.State == mcp.StateRunning || s.State == mcp.StateStarting) {
			return true
		}
	}
	return false
}

// mcpPrompt expands a prompt that names an MCP server's prompt
// ("/mcp__everything__args-prompt Paris") into the prompt's text; ok is
// false for any other prompt. A prompt that cannot be had (a missing
// argument, the server's error) blocks the turn with the reason.
func (a *agent) mcpPrompt(ctx context.Context, typed string) (p turn.Prompt, notices []loop.Notice, blocked string, ok bool) {
	if a.mcp == nil || !strings.HasPrefix(typed, "/"+mcp.Prefix) {
		return turn.Prompt{}, nil, "", false
	}
	got, ok, err := a.mcp.GetPrompt(ctx, typed)
	if !ok {
		return turn.Prompt{}, nil, "", false
	}
	if err != nil {
		return turn.Prompt{}, nil, err.Error(), true
	}
	name, _, _ := strings.Cut(strings.TrimSpace(typed), " ")
	msg := providers.UserText(got.Text)
	for _, img := range got.Images {
		msg.Parts = append(msg.Parts, providers.Image{MediaType: img.MediaType, Data: img.Data})
	}
	return turn.Prompt{Message: msg}, []loop.Notice{{Source: "commands", Text: name + " (MCP prompt)"}}, "", true
}

// Command is a slash command a session's prompts expand: a custom command
// or an MCP server's prompt.
type Command struct {
	// Name is the command without its slash ("review", "frontend:test",
	// "mcp__everything__args-prompt"); Hint names its arguments.
	Name, Hint, Description string
}

// mcpCommands are the MCP servers' prompts as commands.
func (a *agent) mcpCommands() []Command {
	var out []Command
	for _, p := range a.mcp.Prompts() {
		out = append(out, Command{Name: p.Command, Hint: p.Hint(), Description: p.Description + " (MCP " + p.Server + ")"})
	}
	return out
}
