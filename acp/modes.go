package acp

import (
	"fmt"

	sdk "github.com/coder/acp-go-sdk"
)

// The permission modes a session offers (agent's own --permission-mode
// values; yolo is not offered to an editor).
var modes = []sdk.SessionMode{
	{Id: "ask", Name: "Ask", Description: sdk.Ptr("Ask before commands and file changes that no rule allows")},
	{Id: "auto", Name: "Auto", Description: sdk.Ptr("Commands run in the sandbox and file changes proceed without asking")},
	{Id: "plan", Name: "Plan", Description: sdk.Ptr("Only read-only tools run; the model proposes a plan to approve")},
}

// modeState is the modes of a session in mode.
func modeState(mode string) *sdk.SessionModeState {
	return &sdk.SessionModeState{AvailableModes: modes, CurrentModeId: sdk.SessionModeId(mode)}
}

// modeUpdate tells the client the mode changed (an approved plan).
func modeUpdate(mode string) sdk.SessionUpdate {
	return sdk.SessionUpdate{CurrentModeUpdate: &sdk.SessionCurrentModeUpdate{CurrentModeId: sdk.SessionModeId(mode), SessionUpdate: "current_mode_update"}}
}

// Command is a slash command a session takes (a custom command:
// "/review main.go" in a prompt expands it), as available_commands_update
// lists it.
type Command struct {
	// Name is the command without its slash; Description says what it
	// does; Hint, when not empty, is shown until arguments are typed.
	Name, Description, Hint string
}

// Commander is a Session that has slash commands to list; a Session that
// is not one lists none.
type Commander interface {
	Commands() []Command
}

// CommandWatcher is a Commander whose commands may change while it lives
// (an MCP server's prompts join when it starts): it calls fn, from any
// goroutine, after they may have changed.
type CommandWatcher interface {
	WatchCommands(fn func())
}

// availableCommands is the commands session s takes (its custom commands;
// the interface's own slash commands do not run over ACP).
func availableCommands(s Session) sdk.SessionUpdate {
	list := []sdk.AvailableCommand{}
	if c, ok := s.(Commander); ok {
		for _, cmd := range c.Commands() {
			ac := sdk.AvailableCommand{Name: cmd.Name, Description: cmd.Description}
			if cmd.Hint != "" {
				ac.Input = &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: cmd.Hint}}
			}
			list = append(list, ac)
		}
	}
	return sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{
		SessionUpdate:     "available_commands_update",
		AvailableCommands: list,
	}}
}

// mcpServers converts a client's MCP servers; an ACP-transport server is
// refused (mcpCapabilities.acp is not declared).
func mcpServers(in []sdk.McpServer) ([]MCPServer, error) {
	var out []MCPServer
	for _, s := range in {
		switch {
		case s.Stdio != nil:
			env := map[string]string{}
			for _, e := range s.Stdio.Env {
				env[e.Name] = e.Value
			}
			out = append(out, MCPServer{Name: s.Stdio.Name, Type: "stdio", Command: s.Stdio.Command, Args: s.Stdio.Args, Env: env})
		case s.Http != nil:
			out = append(out, MCPServer{Name: s.Http.Name, Type: "http", URL: s.Http.Url, Headers: headers(s.Http.Headers)})
		case s.Sse != nil:
			out = append(out, MCPServer{Name: s.Sse.Name, Type: "sse", URL: s.Sse.Url, Headers: headers(s.Sse.Headers)})
		default:
			return nil, fmt.Errorf("MCP server: only stdio, http and sse servers are supported")
		}
	}
	return out, nil
}

func headers(hs []sdk.HttpHeader) map[string]string {
	m := map[string]string{}
	for _, h := range hs {
		m[h.Name] = h.Value
	}
	return m
}
