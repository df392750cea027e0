package sessions

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agent-dev/agent/providers"
)

// Recorder records one session's conversation as the agent loop produces
// it. Its method set is the loop's CallStore interface. Each call is one
// transaction, committed before the call returns, except RecordToolCall's,
// which joins the session's next write; calls may come from several
// goroutines at once.
type Recorder struct {
	s  *Store
	id string
	// touched is when (Unix milliseconds) this recorder last wrote the
	// session's updated time; see touchEvery.
	touched atomic.Int64
	// held are the records RecordToolCall keeps for the session's next
	// write, guarded by mu; heldErr is why one of them could not be
	// written (its call was never recorded), for Flush to return.
	mu      sync.Mutex
	held    []heldCall
	heldErr error
}

// heldCall is a tool call's record RecordToolCall keeps: its arguments.
type heldCall struct {
	call             providers.ToolCall
	started          time.Time
	decided, allowed bool
	why              string
	waited           time.Duration
	result           providers.ToolResult
	finished         time.Time
}

// touchEvery is how often, at most, a recorder writes its session's
// updated time as it records messages and tool calls: the time is in
// two indexes (the sessions list's order, and -c's latest session of a
// directory), and a write of it rewrote a page of each, a third of what
// a five-step -p run wrote (BENCHMARKS.md, "Issue 43, a fifth pass"). A
// turn's end writes it too (Store.SetStatus), so it is exact then and
// within touchEvery of the last record during a turn.
const touchEvery = 5 * time.Second

// due reports whether a write at now (Unix milliseconds) should bump the
// session's updated time.
func (r *Recorder) due(now int64) bool {
	return now-r.touched.Load() >= touchEvery.Milliseconds()
}

// stamped notes that a committed write bumped the updated time to now,
// when it did (touch).
func (r *Recorder) stamped(now int64, touch bool) {
	if touch {
		r.touched.Store(now)
	}
}

// Recorder returns the recorder of the session with exactly this id, the
// same one for every call with that id (the loop's and the conversation's
// writes share what it holds). The id is checked by the first write, which
// fails with ErrNotFound if the session does not exist (or was deleted).
func (s *Store) Recorder(sessionID string) *Recorder {
	s.recMu.Lock()
	defer s.recMu.Unlock()
	if r := s.recorders[sessionID]; r != nil {
		return r
	}
	r := &Recorder{s: s, id: sessionID}
	if s.recorders == nil {
		s.recorders = map[string]*Recorder{}
	}
	s.recorders[sessionID] = r
	return r
}

// SessionID returns the id of the session r records.
func (r *Recorder) SessionID() string { return r.id }

// AppendMessage stores m as the session's next message (its seq is one more
// than the last), adds usage to the session's totals and bumps its updated
// time. Each ToolCall part of an assistant message gets a tool call record
// with status pending.
func (r *Recorder) AppendMessage(ctx context.Context, m providers.Message, usage providers.Usage) error {
	refs := imageRefs{}
	parts, err := marshalParts(m.Parts, refs)
	if err != nil {
		return fmt.Errorf("recording %s message in session %s: %w", m.Role, r.id, err)
	}
	now := millis(r.s.now())
	count, touch := sqlCountMessageQuiet, r.due(now)
	if touch {
		count = sqlCountMessage
	}
	held := r.take()
	queries := []string{count, sqlInsertMessage}
	if len(held) > 0 {
		queries = append(queries, heldQueries...)
	}
	if len(refs) > 0 {
		queries = append(queries, sqlInsertImage)
	}
	if len(m.ToolCalls()) > 0 {
		queries = append(queries, sqlInsertToolCall)
	}
	err = r.s.writeWith(ctx, queries, func(tx *sql.Tx) error {
		if err := r.writeHeld(ctx, tx, held); err != nil {
			return err
		}
		st, err := r.s.stmt(ctx, tx, count)
		if err != nil {
			return err
		}
		args := []any{usage.InputTokens, usage.OutputTokens, usage.CachedInputTokens, usage.ReasoningTokens, usage.CacheWriteTokens}
		if touch {
			args = append(args, now)
		}
		var seq int
		err = st.QueryRowContext(ctx, append(args, r.id)...).Scan(&seq)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		if len(refs) > 0 {
			insImage, err := r.s.stmt(ctx, tx, sqlInsertImage)
			if err != nil {
				return err
			}
			for h, img := range refs {
				if _, err := insImage.ExecContext(ctx, h, img.MediaType, img.Data, now); err != nil {
					return err
				}
			}
		}
		insMessage, err := r.s.stmt(ctx, tx, sqlInsertMessage)
		if err != nil {
			return err
		}
		res, err := insMessage.ExecContext(ctx, r.id, seq, string(m.Role), string(parts),
			usage.InputTokens, usage.OutputTokens, usage.CachedInputTokens, usage.ReasoningTokens, usage.CacheWriteTokens, now)
		if err != nil {
			return err
		}
		if m.Role != providers.RoleAssistant {
			return nil
		}
		msgID, err := res.LastInsertId()
		if err != nil {
			return err
		}
		calls := m.ToolCalls()
		if len(calls) == 0 {
			return nil
		}
		insCall, err := r.s.stmt(ctx, tx, sqlInsertToolCall)
		if err != nil {
			return err
		}
		for _, c := range calls {
			if _, err := insCall.ExecContext(ctx, r.id, msgID, c.ID, c.Name, c.Arguments); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		r.putBack(held)
		return fmt.Errorf("recording %s message in session %s: %w", m.Role, r.id, err)
	}
	r.stamped(now, touch)
	return nil
}

// callRow picks the tool call record a write is about: among the records
// with that call id, those of the latest assistant message that has one;
// among those (a model may repeat an id within a message), the first by the
// given status preference.
const callRow = `(SELECT id FROM tool_calls
	WHERE session_id = ?1 AND call_id = ?2
	  AND message_id = (SELECT MAX(message_id) FROM tool_calls WHERE session_id = ?1 AND call_id = ?2)
	ORDER BY %s, id LIMIT 1)`

// StartToolCall marks call, from the session's latest assistant message
// that has its id, as executing since started. A call that was never
// recorded is ErrNotFound.
func (r *Recorder) StartToolCall(ctx context.Context, call providers.ToolCall, started time.Time) error {
	if err := r.updateCall(ctx, sqlStartCall, call.ID, millis(started)); err != nil {
		return fmt.Errorf("recording start of tool call %s (%s) in session %s: %w", call.ID, call.Name, r.id, err)
	}
	return nil
}

// DecideToolCall records the approval decision about call, from the
// session's latest assistant message that has its id: allowed or denied and
// why (who or what decided; may be empty), stored as decisionText writes
// it, and how long deciding took (waited, kept in whole milliseconds apart
// from the run time). The loop decides after StartToolCall, so an executing record is
// preferred, then a pending one (as for FinishToolCall): with a call id
// repeated within a message, each decision lands on the call that is
// running. A call that was never recorded is ErrNotFound.
func (r *Recorder) DecideToolCall(ctx context.Context, call providers.ToolCall, allowed bool, why string, waited time.Duration) error {
	if err := r.updateCall(ctx, sqlDecideCall, call.ID, decisionText(allowed, why), max(waited, 0).Milliseconds()); err != nil {
		return fmt.Errorf("recording decision about tool call %s (%s) in session %s: %w", call.ID, call.Name, r.id, err)
	}
	return nil
}

// decisionText is the text DecideToolCall stores for a decision: "allowed: "
// or "denied: " and why, why alone when it already starts with the outcome
// (`denied by rule "rm"`), and "allowed" or "denied" alone when why is
// empty. It always starts with "allowed" or "denied".
func decisionText(allowed bool, why string) string {
	outcome := "denied"
	if allowed {
		outcome = "allowed"
	}
	why = strings.TrimSpace(why)
	switch {
	case why == "":
		return outcome
	case strings.HasPrefix(why, outcome):
		return why
	}
	return outcome + ": " + why
}

// FinishToolCall records call's result: status failed when result.IsError,
// else completed, the result's content, the start and finish times and the
// run time in milliseconds: finished - started less the approval wait
// DecideToolCall recorded. A call that was never recorded is ErrNotFound.
func (r *Recorder) FinishToolCall(ctx context.Context, call providers.ToolCall, result providers.ToolResult, started, finished time.Time) error {
	status := "completed"
	if result.IsError {
		status = "failed"
	}
	err := r.updateCall(ctx, sqlFinishCall, call.ID, status, result.Content, result.IsError,
		millis(started), millis(finished), finished.Sub(started).Milliseconds())
	if err != nil {
		return fmt.Errorf("recording result of tool call %s (%s) in session %s: %w", call.ID, call.Name, r.id, err)
	}
	return nil
}

// RecordToolCall records call, from the session's latest assistant message
// that has its id, as StartToolCall, DecideToolCall (when decided) and
// FinishToolCall would, for a call that ended before its start was written
// (loop.CallStore): the record is held and joins the session's next write
// through this recorder, in its transaction (the message of the call's
// result, or a slower call's start, which the loop writes 100 ms in), or
// Flush. It returns nil. A call that was never recorded is left out, and
// the next Flush returns ErrNotFound for it; any other failure is that
// write's, which keeps the records to try again.
func (r *Recorder) RecordToolCall(ctx context.Context, call providers.ToolCall, started time.Time, decided, allowed bool, why string,
	waited time.Duration, result providers.ToolResult, finished time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.held = append(r.held, heldCall{call, started, decided, allowed, why, waited, result, finished})
	return nil
}

// Flush writes the records RecordToolCall holds, in a transaction of their
// own; it writes nothing when none is held. It returns the failure of one
// left out since the last Flush (ErrNotFound, wrapped) or its own.
func (r *Recorder) Flush(ctx context.Context) error {
	held := r.take()
	if len(held) == 0 {
		return r.takeErr()
	}
	now := millis(r.s.now())
	touch := r.due(now)
	err := r.s.writeWith(ctx, append(slices.Clone(heldQueries), sqlTouchSession), func(tx *sql.Tx) error {
		if err := r.writeHeld(ctx, tx, held); err != nil {
			return err
		}
		return r.touch(ctx, tx, now, touch)
	})
	if err != nil {
		r.putBack(held)
		return err
	}
	r.stamped(now, touch)
	return r.takeErr()
}

// takeErr returns and forgets why a held record was left out.
func (r *Recorder) takeErr() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	err := r.heldErr
	r.heldErr = nil
	return err
}

// take removes the held records and returns them.
func (r *Recorder) take() []heldCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	held := r.held
	r.held = nil
	return held
}

// putBack keeps again, first, the records a failed write took.
func (r *Recorder) putBack(held []heldCall) {
	if len(held) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.held = append(held, r.held...)
}

// heldQueries are the statements writeHeld runs.
var heldQueries = []string{sqlHeldCall}

// writeHeld writes held records in tx, in the order they were held. One
// whose call was never recorded is left out (nothing of it is written: its
// start finds no row) and kept as heldErr.
func (r *Recorder) writeHeld(ctx context.Context, tx *sql.Tx, held []heldCall) error {
	for _, h := range held {
		status := "completed"
		if h.result.IsError {
			status = "failed"
		}
		var decision, waited any // NULL: not decided, the record's are kept
		if h.decided {
			decision, waited = decisionText(h.allowed, h.why), max(h.waited, 0).Milliseconds()
		}
		err := r.execCall(ctx, tx, sqlHeldCall, h.call.ID, status, h.result.Content, h.result.IsError,
			millis(h.started), millis(h.finished), h.finished.Sub(h.started).Milliseconds(), decision, waited)
		if err == nil {
			continue
		}
		err = fmt.Errorf("recording tool call %s (%s) in session %s: %w", h.call.ID, h.call.Name, r.id, err)
		if !errors.Is(err, ErrNotFound) {
			return err
		}
		r.mu.Lock()
		if r.heldErr == nil {
			r.heldErr = err
		}
		r.mu.Unlock()
	}
	return nil
}

// The statements of a tool call's writes (prepared once per store: stmt).
var (
	sqlStartCall = fmt.Sprintf(`UPDATE tool_calls SET status = 'executing', started_at = ?3 WHERE id = `+callRow,
		`CASE status WHEN 'pending' THEN 0 ELSE 1 END`)
	sqlDecideCall = fmt.Sprintf(`UPDATE tool_calls SET decision = ?3, approval_ms = ?4 WHERE id = `+callRow,
		`CASE status WHEN 'executing' THEN 0 WHEN 'pending' THEN 1 ELSE 2 END`)
	sqlFinishCall = fmt.Sprintf(`UPDATE tool_calls SET status = ?3, result = ?4, is_error = ?5,
			started_at = ?6, finished_at = ?7, duration_ms = MAX(?8 - COALESCE(approval_ms, 0), 0) WHERE id = `+callRow,
		`CASE status WHEN 'executing' THEN 0 WHEN 'pending' THEN 1 ELSE 2 END`)
)

// sqlHeldCall writes a held call's record (RecordToolCall) at once: what
// sqlStartCall, sqlDecideCall (when ?9 and ?10 are not NULL) and
// sqlFinishCall would write one after the other, to the record the first
// of them would pick (the later two pick the one it marked executing). One
// statement rather than three: each is prepared at its first use in a
// process, 0.1-0.2 ms each on the path from a run's first tool call to its
// next request (BENCHMARKS.md, issue 43).
var sqlHeldCall = fmt.Sprintf(`UPDATE tool_calls SET status = ?3, result = ?4, is_error = ?5,
		started_at = ?6, finished_at = ?7, decision = COALESCE(?9, decision), approval_ms = COALESCE(?10, approval_ms),
		duration_ms = MAX(?8 - COALESCE(?10, approval_ms, 0), 0) WHERE id = `+callRow,
	`CASE status WHEN 'pending' THEN 0 ELSE 1 END`)

const sqlTouchSession = `UPDATE sessions SET updated_at = ? WHERE id = ?`

// updateCall runs q, one of the statements above, with the session id as
// ?1, the call id as ?2 and args from ?3 on, and bumps the session's
// updated time (when due), in a transaction of its own.
func (r *Recorder) updateCall(ctx context.Context, q, callID string, args ...any) error {
	now := millis(r.s.now())
	touch := r.due(now)
	held := r.take()
	err := r.s.writeWith(ctx, append([]string{q, sqlTouchSession}, heldQueries...), func(tx *sql.Tx) error {
		if err := r.writeHeld(ctx, tx, held); err != nil {
			return err
		}
		if err := r.execCall(ctx, tx, q, callID, args...); err != nil {
			return err
		}
		return r.touch(ctx, tx, now, touch)
	})
	if err != nil {
		r.putBack(held)
		return err
	}
	r.stamped(now, touch)
	return nil
}

// execCall runs q in tx as updateCall describes; a call that was never
// recorded is ErrNotFound.
func (r *Recorder) execCall(ctx context.Context, tx *sql.Tx, q, callID string, args ...any) error {
	st, err := r.s.stmt(ctx, tx, q)
	if err != nil {
		return err
	}
	res, err := st.ExecContext(ctx, append([]any{r.id, callID}, args...)...)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return fmt.Errorf("no such call: %w", ErrNotFound)
	}
	return nil
}

// touch sets the session's updated time to now in tx, when due (touchEvery).
func (r *Recorder) touch(ctx context.Context, tx *sql.Tx, now int64, due bool) error {
	if !due {
		return nil
	}
	st, err := r.s.stmt(ctx, tx, sqlTouchSession)
	if err != nil {
		return err
	}
	_, err = st.ExecContext(ctx, now, r.id)
	return err
}
