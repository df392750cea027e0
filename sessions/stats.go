package sessions

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
)

// ToolStats sums up the recorded calls of one tool.
type ToolStats struct {
	Name string
	// Calls counts the finished calls that ran; Failures those with an
	// error result. A denied call did not run: it counts in Denied only.
	Calls    int
	Failures int
	Denied   int
	// FailureRate is Failures/Calls, from 0 to 1.
	FailureRate float64
	// Unfinished counts the calls that never finished (interrupted or still
	// running); they count in nothing else.
	Unfinished int
	// MedianMS and P95MS are percentiles of the finished calls' durations in
	// milliseconds, interpolated linearly between the nearest durations.
	MedianMS float64
	P95MS    float64
	// Asked counts the calls whose approval a person answered when asked
	// (an answer remembered for the session asks nothing), and
	// WaitMedianMS is the median of how long they took to answer, in
	// milliseconds (recorded from schema version 7 on; 0 when none).
	Asked        int
	WaitMedianMS float64
}

// Stats returns per tool statistics over the sessions of the working
// directory dir ("" for all sessions), sorted by tool name.
func (s *Store) Stats(ctx context.Context, dir string) ([]ToolStats, error) {
	q, args, err := statsQuery(dir)
	if err != nil {
		return nil, fmt.Errorf("tool statistics: %w", err)
	}
	rows, err := s.conn(ctx).QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("tool statistics: %w", err)
	}
	defer rows.Close()
	byName := map[string]*toolTally{}
	for rows.Next() {
		var name, decision string
		var status ToolStatus
		var ms, wait *int64
		if err := rows.Scan(&name, &status, &ms, &decision, &wait); err != nil {
			return nil, fmt.Errorf("tool statistics: %w", err)
		}
		t := byName[name]
		if t == nil {
			t = &toolTally{st: ToolStats{Name: name}}
			byName[name] = t
		}
		t.add(status, ms, decision, wait)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("tool statistics: %w", err)
	}
	out := make([]ToolStats, 0, len(byName))
	for _, t := range byName {
		out = append(out, t.done())
	}
	slices.SortFunc(out, func(a, b ToolStats) int { return cmp.Compare(a.Name, b.Name) })
	return out, nil
}

// statsQuery is the query of Stats and its arguments: every tool call's
// name, status, duration, decision and approval wait, of the sessions of
// directory dir (made absolute) or of all sessions when dir is "".
func statsQuery(dir string) (string, []any, error) {
	q := `SELECT t.name, t.status, t.duration_ms, COALESCE(t.decision, ''), t.approval_ms FROM tool_calls t`
	if dir == "" {
		return q, nil, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", nil, err
	}
	return q + ` JOIN sessions s ON s.id = t.session_id WHERE s.dir = ?`, []any{abs}, nil
}

// toolTally gathers one tool's statistics call by call.
type toolTally struct {
	st        ToolStats
	durations []float64 // of the finished calls, in milliseconds
	waits     []float64 // for the answers a person gave, in milliseconds
}

// add counts one call: its status, its duration and the wait for its
// approval in milliseconds (nil when not recorded), and the approval's
// decision.
func (t *toolTally) add(status ToolStatus, ms *int64, decision string, wait *int64) {
	if wait != nil && askedPerson(decision) {
		t.st.Asked++
		t.waits = append(t.waits, float64(*wait))
	}
	switch {
	case strings.HasPrefix(decision, "denied"):
		t.st.Denied++
	case status == ToolCompleted, status == ToolFailed:
		t.st.Calls++
		if status == ToolFailed {
			t.st.Failures++
		}
		if ms != nil {
			t.durations = append(t.durations, float64(*ms))
		}
	default:
		t.st.Unfinished++
	}
}

// done is the tool's statistics with the failure rate and the percentiles
// of the calls counted.
func (t *toolTally) done() ToolStats {
	st := t.st
	if st.Calls > 0 {
		st.FailureRate = float64(st.Failures) / float64(st.Calls)
	}
	slices.Sort(t.durations)
	st.MedianMS, st.P95MS = percentile(t.durations, 0.5), percentile(t.durations, 0.95)
	slices.Sort(t.waits)
	st.WaitMedianMS = percentile(t.waits, 0.5)
	return st
}

// percentile returns the p-th quantile (0..1) of sorted, interpolating
// linearly between the two nearest ranks; 0 for no values.
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	pos := p * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	if lo >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	frac := pos - float64(lo)
	return sorted[lo] + frac*(sorted[lo+1]-sorted[lo])
}

// askedPerson reports whether decision (as decisionText stores it) is a
// person's answer to a question: not a rule's or a mode's, nor an answer
// remembered for the session, which decides at once without asking
// ("allowed: person: allowed edits for the session", tui.Approver).
func askedPerson(decision string) bool {
	return strings.Contains(decision, "person") && !strings.Contains(decision, "person: allowed ")
}
