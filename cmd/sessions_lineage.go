package cmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/agent-dev/agent/sessions"
)

// lineage is what sessions show says of a session's checkpoints and forks:
// its prompts' checkpoints, the sessions forked from it, and the session
// it was itself forked from.
type lineage struct {
	checkpoints []sessions.Checkpoint
	branches    []branch
	// parent is the session this one was forked from ("" for none) and
	// parentPrompt the number of the parent's prompt it was forked before
	// (0: a copy of its whole history, or a prompt without a checkpoint).
	parent       string
	parentPrompt int
}

// branch is a session forked from the one shown, before its prompt
// number prompt (0: not before a prompt).
type branch struct {
	sessions.Summary
	prompt int
}

// loadLineage reads ss's lineage.
func loadLineage(ctx context.Context, s *sessions.Store, ss *sessions.Session) (lineage, error) {
	var l lineage
	var err error
	if l.checkpoints, err = s.Checkpoints(ctx, ss.ID); err != nil {
		return l, err
	}
	kids, err := s.Branches(ctx, ss.ID)
	if err != nil {
		return l, err
	}
	for _, k := range kids {
		l.branches = append(l.branches, branch{Summary: k, prompt: promptAt(l.checkpoints, k.ForkedAt)})
	}
	if l.parent = ss.ForkedFrom; l.parent != "" && ss.ForkedAt > 0 {
		// The parent may be gone (sessions rm): then only its id is said.
		if list, err := s.Checkpoints(ctx, l.parent); err == nil {
			l.parentPrompt = promptAt(list, ss.ForkedAt)
		}
	}
	return l, nil
}

// promptAt is the number of the prompt whose message is seq, or 0.
func promptAt(list []sessions.Checkpoint, seq int) int {
	for _, cp := range list {
		if cp.Seq == seq {
			return cp.N
		}
	}
	return 0
}

// renderLineage writes the lineage of session id: a line for its parent,
// a line per checkpoint (number, time, first line of the prompt, the
// files its turn changed, undone), a line per branch.
func renderLineage(id string, l lineage) string {
	var b strings.Builder
	switch {
	case l.parent != "" && l.parentPrompt > 0:
		fmt.Fprintf(&b, "forked from session %s before its prompt %d\n", l.parent, l.parentPrompt)
	case l.parent != "":
		fmt.Fprintf(&b, "forked from session %s\n", l.parent)
	}
	if len(l.checkpoints) > 0 {
		fmt.Fprintf(&b, "checkpoints (agent rewind --session %s --to N):\n", id)
		for _, cp := range l.checkpoints {
			fmt.Fprintf(&b, "  %d  %s  %s  %s", cp.N, cp.At.Local().Format("2006-01-02 15:04:05"), quoteLine(cp.Prompt), changedFiles(cp))
			if cp.Undone {
				b.WriteString("  [undone]")
			}
			b.WriteString("\n")
		}
	}
	if len(l.branches) > 0 {
		b.WriteString("branches (sessions forked from this one):\n")
		for _, br := range l.branches {
			at := "a copy of its history"
			if br.prompt > 0 {
				at = fmt.Sprintf("before prompt %d", br.prompt)
			}
			fmt.Fprintf(&b, "  %s  %s  %s  %d messages\n", br.ID, at, quoteLine(orUntitled(br.Title)), br.Messages)
		}
	}
	return b.String()
}

// changedFiles names the files a checkpoint's turn changed, the first
// few of them.
func changedFiles(cp sessions.Checkpoint) string {
	const most = 5
	n := len(cp.Changed)
	switch {
	case n == 0 && cp.EndTree == "":
		return "files changed: unknown (the turn's end was not recorded)"
	case n == 0:
		return "no files changed"
	}
	shown := make([]string, min(n, most))
	for i := range shown {
		shown[i] = showPath(cp.Changed[i])
	}
	if n > most {
		return "files changed: " + strings.Join(shown, ", ") + fmt.Sprintf(" and %d more", n-most)
	}
	return "files changed: " + strings.Join(shown, ", ")
}
