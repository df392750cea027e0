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
	q := `SELECT t.name, t.status, t.duration_ms, COALESCE(t.decision, ''), t.approval_ms FROM tool_calls t`
	var args []any
	if dir != "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, fmt.Errorf("tool statistics: %w", err)
		}
		q += ` JOIN sessions s ON s.id = t.session_id WHERE s.dir = ?`
		args = append(args, abs)
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("tool statistics: %w", err)
	}
	defer rows.Close()
	byName := map[string]*ToolStats{}
	durations, waits := map[string][]float64{}, map[string][]float64{}
	for rows.Next() {
		var name, decision string
		var status ToolStatus
		var ms, wait *int64
		if err := rows.Scan(&name, &status, &ms, &decision, &wait); err != nil {
			return nil, fmt.Errorf("tool statistics: %w", err)
		}
		st := byName[name]
		if st == nil {
			st = &ToolStats{Name: name}
			byName[name] = st
		}
		if wait != nil && askedPerson(decision) {
			st.Asked++
			waits[name] = append(waits[name], float64(*wait))
		}
		switch {
		case strings.HasPrefix(decision, "denied"):
			st.Denied++
		case status == ToolCompleted, status == ToolFailed:
			st.Calls++
			if status == ToolFailed {
				st.Failures++
			}
			if ms != nil {
				durations[name] = append(durations[name], float64(*ms))
			}
		default:
			st.Unfinished++
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("tool statistics: %w", err)
	}
	out := make([]ToolStats, 0, len(byName))
	for name, st := range byName {
		if st.Calls > 0 {
			st.FailureRate = float64(st.Failures) / float64(st.Calls)
		}
		d := durations[name]
		slices.Sort(d)
		st.MedianMS, st.P95MS = percentile(d, 0.5), percentile(d, 0.95)
		w := waits[name]
		slices.Sort(w)
		st.WaitMedianMS = percentile(w, 0.5)
		out = append(out, *st)
	}
	slices.SortFunc(out, func(a, b ToolStats) int { return cmp.Compare(a.Name, b.Name) })
	return out, nil
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
