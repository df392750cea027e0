// Package sessions stores conversations in an embedded SQLite database
// (modernc.org/sqlite, no cgo): sessions, their messages and their tool
// calls, written as each completes so that a process killed in the middle of
// a turn loses at most the reply that was still streaming.
//
// A Store is opened once per process with Open and shared; it is safe for
// concurrent use, and several processes may write the same database at once
// (WAL mode, a busy timeout and short immediate transactions). A Recorder,
// from Store.Recorder, records one session's conversation for the agent loop:
// its method set is the loop's Store interface, which this package satisfies
// without importing loop.
//
// A FileJournal, from Store.Journal, records the files the agent's editing
// tools change in each turn (the state before the turn's first change to a
// file, the hash after its last); Store.Undo puts back the latest turn's
// files, refusing when one changed outside the agent since. Changes made by
// shell commands are not recorded.
//
// Messages are stored in the neutral format of package providers, their parts
// as tagged JSON (see MarshalParts). The system prompt is a field of the
// session, never a message, so a resumed conversation sends it exactly once.
//
// Secrets: the store never receives API keys or other credentials. It records
// only the session's metadata (directory, provider host, model, system
// prompt, title), the messages and the tool calls. What a tool printed is
// recorded as the model saw it.
package sessions
