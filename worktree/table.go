package worktree

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Describe is an entry's state for people: "clean", "dirty (3 files), 2
// commits", "ahead (2 commits)", "missing", followed by who works in it:
// "in use by process 123", or "left by a crash".
func (e Entry) Describe() string {
	st := e.Status
	var s string
	switch st.State() {
	case StateDirty:
		s = fmt.Sprintf("dirty (%s)", plural(st.Dirty, "file"))
		if st.Commits > 0 {
			s += ", " + plural(st.Commits, "commit")
		}
	case StateAhead:
		s = fmt.Sprintf("ahead (%s)", plural(st.Commits, "commit"))
	default:
		s = st.State()
	}
	if e.Err != "" {
		s = "unknown: " + e.Err
	}
	switch {
	case e.InUse && e.Owner != nil:
		s += fmt.Sprintf("; in use by process %d", e.Owner.PID)
	case e.Crashed:
		s += "; left by a crash"
	}
	return s
}

// WriteTable writes entries as a table for people: name, branch, state,
// session and path, one worktree a line, under a header.
func WriteTable(w io.Writer, entries []Entry) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tBRANCH\tSTATE\tSESSION\tPATH")
	for _, e := range entries {
		session := e.Session
		if session == "" {
			session = "-"
		}
		if e.Task != "" {
			session += " (subagent)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", clean(e.Name), clean(e.Branch), clean(e.Describe()), clean(session), clean(e.Path))
	}
	return tw.Flush()
}

// clean keeps a cell on one line of the table.
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}
