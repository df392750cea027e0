package sdkstream

import (
	"context"
	"encoding/json"

	"github.com/agent-dev/agent/turn"
)

// FilesRewound is what a rewind of the files did, or would do: the files
// written or removed, and the lines added and removed in them.
type FilesRewound struct {
	Files                 []string
	Insertions, Deletions int
}

// rewindFiles answers rewind_files as the SDK's RewindFilesResult:
// {canRewind, filesChanged, insertions, deletions}, or {canRewind: false,
// error} when checkpointing is off or the rewind failed (an unknown
// message id among the reasons).
func (s *Server) rewindFiles(ctx context.Context, userMessageID string, dryRun bool) map[string]any {
	if s.cfg.RewindFiles == nil {
		return map[string]any{"canRewind": false,
			"error": "file checkpointing is not enabled (the SDK's enableFileCheckpointing: CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING=true)"}
	}
	if userMessageID == "" {
		return map[string]any{"canRewind": false, "error": "rewind_files needs user_message_id"}
	}
	r, err := s.cfg.RewindFiles(ctx, userMessageID, dryRun)
	if err != nil {
		return map[string]any{"canRewind": false, "error": err.Error()}
	}
	return map[string]any{"canRewind": true, "filesChanged": nonNil(r.Files), "insertions": r.Insertions, "deletions": r.Deletions}
}

// replay is the SDK's SDKUserMessageReplay of a user message read, whose
// prompt's id is id.
func (s *Server) replay(message json.RawMessage, id string) map[string]any {
	return map[string]any{"type": "user", "message": message, "parent_tool_use_id": nil, "uuid": id,
		"session_id": s.cfg.Init.SessionID, "isReplay": true}
}

// promptID is the id of a user message's prompt: the uuid the SDK sent
// when it is one (8-4-4-4-12 hexadecimal digits), else a new one.
func promptID(sent string) string {
	if isUUID(sent) {
		return sent
	}
	return turn.NewID()
}

func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}
