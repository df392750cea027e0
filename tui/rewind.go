package tui

import (
	"context"

	"github.com/agent-dev/agent/sessions"
)

// Rewinder is what the interface needs to take a session back to one of
// its prompts' checkpoints (/rewind, Esc Esc) and to undo the last
// prompt's changes (/undo). It must be safe for concurrent use: the model
// calls it only from commands, never from Update.
type Rewinder interface {
	// Checkpoints lists session id's checkpoints, one per prompt, oldest
	// first (none when checkpoints are off or the session predates them).
	Checkpoints(ctx context.Context, id string) ([]sessions.Checkpoint, error)
	// Rewind takes sess, the session the interface shows, back to the
	// checkpoint of prompt req.To as req.Scope says; with req.Preview it
	// changes nothing and the result's plan is what a rewind of the code
	// would do. When the conversation was rewound (or summarized) the
	// result's Session is the fork to go on with. Cancelling ctx abandons
	// a preview or a summary; a restore of the files under way is not
	// abandoned. It reads sess's ID and Conv only.
	Rewind(ctx context.Context, sess *Session, req RewindRequest) (Rewound, error)
	// Undo takes the files back to before the latest prompt of session id
	// that changed files and was not undone yet, leaving those changed
	// outside the agent since as they are. A session without checkpoints
	// undoes its last turn's edits from the undo journal instead: the
	// journal's result is then not nil. Nothing left to undo is
	// sessions.ErrNothingToUndo.
	Undo(ctx context.Context, id string) (Rewound, *sessions.UndoResult, error)
}

// RewindScope is what a rewind takes back.
type RewindScope int

// The scopes of a rewind, as its menu offers them.
const (
	// RewindBoth restores the files and forks the conversation before the
	// prompt.
	RewindBoth RewindScope = iota
	// RewindConversation forks the conversation before the prompt; the
	// files stay as they are.
	RewindConversation
	// RewindCode restores the files; the conversation goes on.
	RewindCode
	// RewindSummarize forks the conversation before the prompt with a
	// summary of what followed it in place of those messages.
	RewindSummarize
)

// code reports whether the scope restores files; conversation whether it
// forks the conversation.
func (sc RewindScope) code() bool         { return sc == RewindBoth || sc == RewindCode }
func (sc RewindScope) conversation() bool { return sc != RewindCode }

// RewindRequest asks the Rewinder for a rewind.
type RewindRequest struct {
	// To is the prompt's number in the session, from 1
	// (sessions.Checkpoint.N).
	To    int
	Scope RewindScope
	// Preview plans the rewind of the code and changes nothing.
	Preview bool
	// Force restores the files changed outside the agent too (Kept).
	Force bool
}

// FileChange is one file a rewind of the code writes or removes, keeps or
// never writes.
type FileChange struct {
	// Path is slash-separated, relative to the working directory.
	Path string
	// Action is what restoring does to it: "create" (it is missing and
	// comes back), "modify" or "delete" (it was made after the
	// checkpoint).
	Action string
	// Added and Removed are the lines restoring adds and removes; both 0
	// for a binary file.
	Added, Removed int
	Binary         bool
}

// Rewound is what a rewind did, or, for a preview, would do.
type Rewound struct {
	// Prompt is the number of the prompt rewound to; Text its full text,
	// to offer again.
	Prompt int
	Text   string
	// Changes are the files restoring writes or removes; Kept those
	// changed outside the agent since the checkpoint, restored only when
	// forced; Protected those that differ but are never written.
	Changes, Kept, Protected []FileChange
	// Restored are the files written or removed (none for a preview).
	Restored []FileChange
	// Session is the session to go on with when the conversation was
	// rewound: a fork made before the prompt. nil otherwise.
	Session *Session
	// Left is the session the fork was made from, which keeps every
	// message.
	Left string
}
