package sessions

import "errors"

// Errors the command layer maps to exit codes. They are wrapped with context;
// test them with errors.Is.
var (
	// ErrNotFound: no session has that id (or id prefix), or no session
	// exists in the asked directory.
	ErrNotFound = errors.New("session not found")
	// ErrAmbiguous: an id prefix matches more than one session.
	ErrAmbiguous = errors.New("ambiguous session id prefix")
	// ErrNewerSchema: the database was written by a newer agent whose schema
	// this binary does not know. The database is left untouched.
	ErrNewerSchema = errors.New("session database was created by a newer version of agent")
	// ErrNothingToUndo: every file change the session recorded is undone
	// already, or it recorded none.
	ErrNothingToUndo = errors.New("nothing to undo")
	// ErrChangedSince: Undo refused because a file changed outside the agent
	// after the agent's last change to it. Nothing was restored. The error is
	// a *ChangedSinceError, which names the files.
	ErrChangedSince = errors.New("changed outside the agent since")
)
