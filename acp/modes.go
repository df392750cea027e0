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

// availableCommands is the commands a session takes: none of the
// interface's slash commands run over ACP yet, so the list says what a
// prompt may carry instead.
func availableCommands() sdk.SessionUpdate {
	return sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{
		SessionUpdate:     "available_commands_update",
		AvailableCommands: []sdk.AvailableCommand{},
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
