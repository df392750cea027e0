package sessions

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// migrations are the schema's versions: migrations[i] brings user_version
// i to i+1. Append new steps; never edit a released one.
var migrations = []string{
	// 1: sessions, messages, tool calls. Times are milliseconds since the
	// Unix epoch; message_count is the highest message seq of the session.
	`
CREATE TABLE sessions (
	id                TEXT PRIMARY KEY,
	title             TEXT NOT NULL DEFAULT '',
	dir               TEXT NOT NULL,
	provider          TEXT NOT NULL DEFAULT '',
	model             TEXT NOT NULL DEFAULT '',
	system_prompt     TEXT NOT NULL DEFAULT '',
	status            TEXT NOT NULL DEFAULT 'running'
	                  CHECK (status IN ('running', 'completed', 'failed', 'cancelled')),
	created_at        INTEGER NOT NULL,
	updated_at        INTEGER NOT NULL,
	message_count     INTEGER NOT NULL DEFAULT 0,
	input_tokens      INTEGER NOT NULL DEFAULT 0,
	output_tokens     INTEGER NOT NULL DEFAULT 0,
	cached_tokens     INTEGER NOT NULL DEFAULT 0,
	reasoning_tokens  INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX sessions_updated ON sessions (updated_at);
CREATE INDEX sessions_dir_updated ON sessions (dir, updated_at);

CREATE TABLE messages (
	id                INTEGER PRIMARY KEY,
	session_id        TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	seq               INTEGER NOT NULL,
	role              TEXT NOT NULL,
	parts             TEXT NOT NULL,
	input_tokens      INTEGER NOT NULL DEFAULT 0,
	output_tokens     INTEGER NOT NULL DEFAULT 0,
	cached_tokens     INTEGER NOT NULL DEFAULT 0,
	reasoning_tokens  INTEGER NOT NULL DEFAULT 0,
	created_at        INTEGER NOT NULL,
	UNIQUE (session_id, seq)
);

CREATE TABLE tool_calls (
	id                INTEGER PRIMARY KEY,
	session_id        TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	message_id        INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
	call_id           TEXT NOT NULL,
	name              TEXT NOT NULL,
	arguments         TEXT NOT NULL,
	result            TEXT,
	is_error          INTEGER NOT NULL DEFAULT 0,
	status            TEXT NOT NULL DEFAULT 'pending'
	                  CHECK (status IN ('pending', 'executing', 'completed', 'failed')),
	started_at        INTEGER,
	finished_at       INTEGER,
	duration_ms       INTEGER
);
CREATE INDEX tool_calls_session_call ON tool_calls (session_id, call_id);
CREATE INDEX tool_calls_message ON tool_calls (message_id);
CREATE INDEX tool_calls_name ON tool_calls (name);
`,
	// 2: the undo journal. One row per file the agent changed in a turn
	// (turn is the seq of the session's latest user message at the time):
	// the file's state before the turn's first change to it, and the SHA-256
	// (lowercase hex) of its content after the turn's last change, NULL
	// until the change is confirmed. prior_content is NULL when the file did
	// not exist; prior_mode is an io/fs.FileMode.
	`
CREATE TABLE file_snapshots (
	id                INTEGER PRIMARY KEY,
	session_id        TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	turn              INTEGER NOT NULL,
	path              TEXT NOT NULL,
	existed           INTEGER NOT NULL,
	prior_content     BLOB,
	prior_mode        INTEGER NOT NULL DEFAULT 0,
	after_hash        TEXT,
	undone            INTEGER NOT NULL DEFAULT 0,
	created_at        INTEGER NOT NULL,
	UNIQUE (session_id, turn, path)
);
`,
	// 3: the approval decision of each tool call (Recorder.DecideToolCall).
	// NULL: the call needed no decision (a read-only tool, a call that
	// failed before anyone was asked, or one recorded before version 3).
	// Otherwise the outcome, "allowed" or "denied", then ": " and who or
	// what decided (loop.Decision.Why): "allowed: person: once",
	// "denied: nobody to ask". A reason that already starts with the
	// outcome is kept as it is (`denied by rule "rm"`), and an empty one
	// leaves the outcome alone. So the text always starts with "allowed" or
	// "denied".
	`
ALTER TABLE tool_calls ADD COLUMN decision TEXT;
`,
	// 4: long sessions. picks: the names of the tools the model picked in
	// the session, a JSON array of strings, kept for the whole session
	// (Recorder.SavePicks). compactions: the points where the request
	// history restarts from a summary; the messages themselves are never
	// deleted. first_seq is the seq of the first message kept verbatim
	// (one past the last message when none was kept); before_tokens and
	// after_tokens estimate the request's size either side.
	`
ALTER TABLE sessions ADD COLUMN picks TEXT NOT NULL DEFAULT '[]';
CREATE TABLE compactions (
	id                INTEGER PRIMARY KEY,
	session_id        TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	first_seq         INTEGER NOT NULL,
	summary           TEXT NOT NULL,
	before_tokens     INTEGER NOT NULL DEFAULT 0,
	after_tokens      INTEGER NOT NULL DEFAULT 0,
	created_at        INTEGER NOT NULL
);
CREATE INDEX compactions_session ON compactions (session_id, id);
`,
	// 5: the input tokens written to the provider's prompt cache
	// (providers.Usage.CacheWriteTokens), per message and summed per
	// session, beside cached_tokens, the tokens read from it. Rows recorded
	// before this step count 0. The step depends on no other.
	`
ALTER TABLE sessions ADD COLUMN cache_write_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE messages ADD COLUMN cache_write_tokens INTEGER NOT NULL DEFAULT 0;
`,
	// 6: one writer per session. holder_pid, holder_start and holder_host
	// name the process that holds the session's lease (Store.Acquire):
	// its process id, its start time as the kernel counts it (clock ticks
	// since boot on Linux; 0 where unknown) and the machine's host name;
	// holder_seq is the session's message count when it took the lease
	// (the holder's own messages come after). NULL: nobody holds it. forked_from is the session a fork copied its
	// history from (Store.Fork). The status may now be 'interrupted': the
	// process running the session's turn is gone (Store.MarkInterrupted).
	// SQLite cannot alter a CHECK constraint, and rebuilding the table
	// would cascade into its messages, so the constraint's text is edited
	// in the schema as SQLite's ALTER TABLE documentation describes for
	// changes that every stored row already satisfies (migrate then bumps
	// schema_version).
	`
ALTER TABLE sessions ADD COLUMN holder_pid INTEGER;
ALTER TABLE sessions ADD COLUMN holder_start INTEGER;
ALTER TABLE sessions ADD COLUMN holder_host TEXT;
ALTER TABLE sessions ADD COLUMN holder_seq INTEGER;
ALTER TABLE sessions ADD COLUMN forked_from TEXT;
PRAGMA writable_schema = ON;
UPDATE sqlite_schema SET sql = replace(sql, '''cancelled''))', '''cancelled'', ''interrupted''))')
	WHERE type = 'table' AND name = 'sessions';
PRAGMA writable_schema = OFF;
`,
	// 7: the wait for approval, apart from the run. approval_ms is how
	// long the approval of the call took to decide (a person's answer, or
	// a rule's instant), given by Recorder.DecideToolCall; NULL when none
	// was asked, or for calls recorded before version 7. From version 7
	// on, duration_ms is the run alone: finished_at - started_at less
	// approval_ms (before, it included the wait).
	`
ALTER TABLE tool_calls ADD COLUMN approval_ms INTEGER;
`,
	// 8: subagents and the todo list. parent_id is the session whose
	// task call started this one (NULL for a session a person started),
	// parent_call_id that call's id; agent names the defined agent it ran
	// as ('' for the default one). todos is the session's todo list, a JSON
	// array of {content, status} objects (todo_write), '[]' when empty.
	`
ALTER TABLE sessions ADD COLUMN parent_id TEXT REFERENCES sessions (id) ON DELETE CASCADE;
ALTER TABLE sessions ADD COLUMN parent_call_id TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN agent TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN todos TEXT NOT NULL DEFAULT '[]';
CREATE INDEX sessions_parent ON sessions (parent_id);
`,
	// 9: full-text search over the messages (Store.Search). message_text
	// is each message's searchable text: its text parts, and its tool
	// calls (name and arguments) and tool results (content), one part a
	// line; reasoning is left out, and so are the calls and results of the
	// memory tools, which only repeat what is stored elsewhere. messages_fts
	// is an FTS5 index of that text (rowid = messages.id) that keeps no
	// copy of it: the text stays in messages.parts. Triggers keep it current
	// as messages are written or deleted (a deleted session's messages go
	// with it). The messages already stored are indexed after the step, in
	// batches, newest first (Store.fillIndex): fts_backlog holds the
	// highest message id not yet indexed, and goes once all are.
	`
CREATE VIEW message_text (id, body) AS
	SELECT m.id, (SELECT group_concat(t, char(10)) FROM (
		SELECT CASE p.value ->> '$.type'
			WHEN 'text' THEN p.value ->> '$.text'
			WHEN 'tool_call' THEN (p.value ->> '$.name') || ' ' || coalesce(p.value ->> '$.arguments', '')
			WHEN 'tool_result' THEN p.value ->> '$.content'
		END AS t
		FROM json_each(m.parts) AS p
		WHERE coalesce(p.value ->> '$.name', '') NOT LIKE 'memory\_%' ESCAPE '\'
	) WHERE t IS NOT NULL AND t != '')
	FROM messages AS m;
CREATE VIRTUAL TABLE messages_fts USING fts5 (
	body, content = '', contentless_delete = 1, tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
	INSERT INTO messages_fts (rowid, body) SELECT id, body FROM message_text WHERE id = new.id AND body IS NOT NULL;
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
	DELETE FROM messages_fts WHERE rowid = old.id;
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE OF parts ON messages BEGIN
	DELETE FROM messages_fts WHERE rowid = old.id;
	INSERT INTO messages_fts (rowid, body) SELECT id, body FROM message_text WHERE id = new.id AND body IS NOT NULL;
END;
CREATE TABLE fts_backlog (upto INTEGER NOT NULL);
INSERT INTO fts_backlog SELECT coalesce(max(id), 0) FROM messages;
	`,
	// 10: embeddings of the messages' searchable text (Store.NearestMessages):
	// at most one row per message, the vector of the embedding model named
	// (float32 little-endian); an empty vector marks a message with no
	// text to embed. A message embedded by another model is embedded again.
	// Rows go with their message.
	`
CREATE TABLE message_vectors (
	message_id        INTEGER PRIMARY KEY REFERENCES messages (id) ON DELETE CASCADE,
	model             TEXT NOT NULL,
	vector            BLOB NOT NULL
);
`,
	// 11: images, stored once each by the SHA-256 of their bytes (hex);
	// a message's parts name an image by its hash (see wireImage) rather
	// than holding its bytes, so a picture sent again and again (a
	// screenshot in every request's history) is one row. Rows may be
	// shared between sessions; migration 12 removes one with the last
	// message that names it.
	`
CREATE TABLE images (
	sha256            TEXT PRIMARY KEY,
	media_type        TEXT NOT NULL,
	data              BLOB NOT NULL,
	created_at        INTEGER NOT NULL
);
`,
	// 12: which messages name which images (every "sha256" key in a
	// message's parts: an image part's, a tool result's images), kept by
	// triggers on whatever writes messages (the recorder, a fork's copy);
	// an image goes with the last message that names it (a deleted
	// session), and the images left by sessions deleted before this
	// migration go now. instr skips the JSON walk for the messages with
	// no image, nearly all.
	`
CREATE TABLE message_images (
	message_id        INTEGER NOT NULL,
	sha256            TEXT NOT NULL,
	PRIMARY KEY (message_id, sha256)
) WITHOUT ROWID;
CREATE INDEX message_images_sha256 ON message_images (sha256);
INSERT OR IGNORE INTO message_images (message_id, sha256)
	SELECT m.id, t.value FROM messages AS m, json_tree(m.parts) AS t
	WHERE instr(m.parts, '"sha256":"') > 0 AND t.key = 'sha256' AND t.type = 'text';
CREATE TRIGGER message_images_insert AFTER INSERT ON messages WHEN instr(new.parts, '"sha256":"') > 0 BEGIN
	INSERT OR IGNORE INTO message_images (message_id, sha256)
		SELECT new.id, t.value FROM json_tree(new.parts) AS t WHERE t.key = 'sha256' AND t.type = 'text';
END;
CREATE TRIGGER message_images_update AFTER UPDATE OF parts ON messages BEGIN
	INSERT OR IGNORE INTO message_images (message_id, sha256)
		SELECT new.id, t.value FROM json_tree(new.parts) AS t
		WHERE instr(new.parts, '"sha256":"') > 0 AND t.key = 'sha256' AND t.type = 'text';
	DELETE FROM message_images WHERE message_id = old.id AND sha256 NOT IN (
		SELECT t.value FROM json_tree(new.parts) AS t WHERE t.key = 'sha256' AND t.type = 'text');
END;
CREATE TRIGGER message_images_delete AFTER DELETE ON messages BEGIN
	DELETE FROM message_images WHERE message_id = old.id;
END;
CREATE TRIGGER message_images_release AFTER DELETE ON message_images BEGIN
	DELETE FROM images WHERE sha256 = old.sha256 AND NOT EXISTS (SELECT 1 FROM message_images WHERE sha256 = old.sha256);
END;
DELETE FROM images WHERE sha256 NOT IN (SELECT sha256 FROM message_images);
`,
	// 13: the status may now be 'max_budget': the session's last turn
	// stopped at a spend cap (--max-budget-usd, --max-tokens-total). The
	// CHECK constraint's text is edited as in step 6.
	`
PRAGMA writable_schema = ON;
UPDATE sqlite_schema SET sql = replace(sql, '''interrupted''))', '''interrupted'', ''max_budget''))')
	WHERE type = 'table' AND name = 'sessions';
PRAGMA writable_schema = OFF;
`,
	// 14: checkpoints (Store.SaveCheckpoint): one row per prompt of a
	// session, at the seq its user message has (or will have: a prompt a
	// hook blocked leaves a row that the next prompt replaces). id is the
	// prompt's id (a uuid, the Claude Agent SDK's restore point); tree the
	// checkpoint's git tree in the project's checkpoint store, taken as the
	// prompt was submitted; end_tree the tree when its turn ended (NULL:
	// it did not end, or was not seen ending) and changed the JSON list of
	// paths the turn changed; skipped the JSON list of files the checkpoint
	// left out, each {"path", "reason"}; undone is set when undo restored
	// the code to it. forked_at is the seq a fork's history stops before
	// (Store.ForkAt; NULL for a whole copy). checkpoint_rewinds are the
	// rewinds of a session's files between its turns (after the turn of the
	// prompt at after_seq; 0 before any), the trees before and after each:
	// what changed between a turn's end, the rewinds and the next prompt
	// was changed outside the agent.
	`
CREATE TABLE checkpoints (
	session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	seq        INTEGER NOT NULL,
	id         TEXT NOT NULL,
	tree       TEXT NOT NULL,
	end_tree   TEXT,
	changed    TEXT NOT NULL DEFAULT '[]',
	skipped    TEXT NOT NULL DEFAULT '[]',
	undone     INTEGER NOT NULL DEFAULT 0,
	created_at INTEGER NOT NULL,
	PRIMARY KEY (session_id, seq)
);
CREATE INDEX checkpoints_by_id ON checkpoints (id);
CREATE TABLE checkpoint_rewinds (
	session_id  TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	after_seq   INTEGER NOT NULL,
	before_tree TEXT NOT NULL,
	after_tree  TEXT NOT NULL,
	created_at  INTEGER NOT NULL
);
CREATE INDEX checkpoint_rewinds_by_session ON checkpoint_rewinds (session_id, after_seq);
ALTER TABLE sessions ADD COLUMN forked_at INTEGER;
`,
	// The sessions a process holds, which every start reads to mark those
	// whose process is gone interrupted (Store.MarkInterrupted): found
	// through this index, not a scan of every session's row (whose status
	// lies past its system prompt, in overflow pages).
	`
CREATE INDEX sessions_running ON sessions (id) WHERE status = 'running';
`,
	// 16: a message is indexed for search when a search brings the index
	// up to date (Store.indexNew), or a store's close once indexAtClose
	// messages wait, not as it is
	// written: the index's trigger tokenized each message and wrote a
	// segment of the FTS5 index with each message's transaction, most of
	// a turn's database writing. fts_state.indexed is the highest message
	// id indexed so far; the messages after it are indexed together. A
	// message written or changed at or below it (an id reused after the
	// newest message was deleted, a message's parts rewritten) is indexed
	// at once, as before.
	`
CREATE TABLE fts_state (indexed INTEGER NOT NULL);
INSERT INTO fts_state SELECT coalesce(max(id), 0) FROM messages;
DROP TRIGGER messages_fts_insert;
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages WHEN new.id <= (SELECT indexed FROM fts_state) BEGIN
	INSERT INTO messages_fts (rowid, body) SELECT id, body FROM message_text WHERE id = new.id AND body IS NOT NULL;
END;
DROP TRIGGER messages_fts_update;
CREATE TRIGGER messages_fts_update AFTER UPDATE OF parts ON messages WHEN old.id <= (SELECT indexed FROM fts_state) BEGIN
	DELETE FROM messages_fts WHERE rowid = old.id;
	INSERT INTO messages_fts (rowid, body) SELECT id, body FROM message_text WHERE id = new.id AND body IS NOT NULL;
END;
`,
	// 17: a message written at or below fts_state.indexed (an id reused
	// after the newest messages were deleted) lowers the mark below it,
	// for the next Store.indexNew to index with those after it, instead
	// of being indexed by its own trigger. A statement that names the
	// FTS5 table costs its preparation the table's connection: the
	// message insert's took 0.21 ms in a warm process (0.03 ms without
	// it) and 0.7-1.1 ms at a -p run's first message (BENCHMARKS.md,
	// issue 43). Every message at or below the lowered mark was at or
	// below the old one, and no message lies above the new one (its id is
	// the highest plus one), so every message at or below the mark is
	// still indexed; indexNew skips those already in the index.
	`
DROP TRIGGER messages_fts_insert;
CREATE TRIGGER messages_fts_mark AFTER INSERT ON messages WHEN new.id <= (SELECT indexed FROM fts_state) BEGIN
	UPDATE fts_state SET indexed = new.id - 1;
END;
`,
}

// migrate brings the schema to SchemaVersion, one transaction per step. The
// version is re-read inside each transaction, which holds the write lock, so
// two processes opening a new database at once migrate it once.
func (s *Store) migrate(ctx context.Context) error {
	v, err := userVersion(ctx, s.conn(ctx))
	if err != nil {
		return err
	}
	if v > len(migrations) {
		return newerSchema(v)
	}
	for v < len(migrations) {
		err := s.write(ctx, func(tx *sql.Tx) error {
			if v, err = userVersion(ctx, tx); err != nil {
				return err
			}
			if v >= len(migrations) {
				return nil
			}
			if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
				return fmt.Errorf("migrating schema to version %d: %w", v+1, err)
			}
			if strings.Contains(migrations[v], "writable_schema") {
				// Other connections must re-read the edited schema.
				var sv int
				if err := tx.QueryRowContext(ctx, "PRAGMA schema_version").Scan(&sv); err != nil {
					return fmt.Errorf("migrating schema to version %d: %w", v+1, err)
				}
				if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA schema_version = %d", sv+1)); err != nil {
					return fmt.Errorf("migrating schema to version %d: %w", v+1, err)
				}
			}
			// PRAGMA takes no parameters; v+1 is our own integer.
			if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", v+1)); err != nil {
				return fmt.Errorf("migrating schema to version %d: %w", v+1, err)
			}
			v++
			return nil
		})
		if err != nil {
			return err
		}
	}
	if v > len(migrations) {
		return newerSchema(v)
	}
	return nil
}

func newerSchema(v int) error {
	return fmt.Errorf("%w (schema version %d; this agent knows up to %d): upgrade agent", ErrNewerSchema, v, len(migrations))
}

type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func userVersion(ctx context.Context, q queryer) (int, error) {
	var v int
	if err := q.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return 0, fmt.Errorf("reading schema version: %w", err)
	}
	return v, nil
}
