package acp

import (
	"encoding/json"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-dev/agent/providers"
)

// replay is a stored conversation as the updates that would have shown
// it: the user's text as user_message_chunk, the assistant's as
// agent_message_chunk, its reasoning as agent_thought_chunk, each call as
// a tool_call and its result as the tool_call_update that finished it.
func replay(sess Session, cwd string) []sdk.SessionUpdate {
	var out []sdk.SessionUpdate
	for _, m := range sess.History() {
		for _, p := range m.Parts {
			switch p := p.(type) {
			case providers.Text:
				if p.Text == "" {
					continue
				}
				if m.Role == providers.RoleUser {
					out = append(out, sdk.UpdateUserMessageText(p.Text))
				} else if m.Role == providers.RoleAssistant {
					out = append(out, sdk.UpdateAgentMessageText(p.Text))
				}
			case providers.Reasoning:
				if p.Text != "" {
					out = append(out, sdk.UpdateAgentThoughtText(p.Text))
				}
			case providers.ToolCall:
				sum, kind := sess.Describe(p.Name, p.Arguments)
				out = append(out, startCall(cwd, p.ID, p.Name, sum, kind, json.RawMessage(p.Arguments)))
			case providers.ToolResult:
				status := sdk.ToolCallStatusCompleted
				if p.IsError {
					status = sdk.ToolCallStatusFailed
				}
				out = append(out, sdk.UpdateToolCall(sdk.ToolCallId(p.CallID), sdk.WithUpdateStatus(status),
					sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(cutText(p.Content)))})))
			}
		}
	}
	return out
}
