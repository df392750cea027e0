package acp

import (
	"encoding/json"

	sdk "github.com/coder/acp-go-sdk"
)

// warmJSON builds encoding/json's encoders and decoders of the protocol's
// first messages (initialize, session/new, session/prompt and the
// session/update of a turn): the library's types are large, and building
// them by reflection costs a few milliseconds of CPU the first time each
// is used. Serve runs it beside the client's first request and the
// backend's start (the store's open), so that cost leaves the way from
// the spawn to the first agent_message_chunk when a core is free.
func warmJSON() {
	for _, v := range []any{
		sdk.InitializeResponse{AgentInfo: &sdk.Implementation{}},
		sdk.NewSessionResponse{Modes: &sdk.SessionModeState{AvailableModes: []sdk.SessionMode{{}}}},
		sdk.PromptResponse{},
		sdk.SessionNotification{Update: sdk.UpdateAgentMessageText("")},
		sdk.SessionNotification{Update: sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{
			AvailableCommands: []sdk.AvailableCommand{{}}}}},
	} {
		_, _ = json.Marshal(v)
	}
	_ = json.Unmarshal([]byte(`{"protocolVersion":1,"clientCapabilities":{"fs":{}}}`), &sdk.InitializeRequest{})
	_ = json.Unmarshal([]byte(`{"cwd":"/","mcpServers":[]}`), &sdk.NewSessionRequest{})
	_ = json.Unmarshal([]byte(`{"sessionId":"s","prompt":[{"type":"text","text":""}]}`), &sdk.PromptRequest{})
}
