package cmd

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agent-dev/agent/checkpoint"
	"github.com/agent-dev/agent/host"
)

// rewindSummary says what a rewind of session id did (with dryRun: would
// do): the files, those it kept and why, the protected ones, and where
// the conversation goes on.
func rewindSummary(id string, scope host.RewindScope, res host.RewindResult, dryRun bool) string {
	var b strings.Builder
	cp := res.Checkpoint
	fmt.Fprintf(&b, "Checkpoint: prompt %d of session %s, %s: %s\n", cp.N, id, cp.At.Local().Format("2006-01-02 15:04:05"), quoteLine(cp.Prompt))
	if scope != host.ScopeConversation {
		writeCodeRewind(&b, res, dryRun)
	}
	if scope != host.ScopeCode {
		if dryRun {
			fmt.Fprintf(&b, "The conversation would go on in a new session forked before prompt %d; session %s would keep all of it.\n", cp.N, id)
		} else {
			fmt.Fprintf(&b, "The conversation goes on in session %s, forked before prompt %d (session %s keeps all of it): continue it with agent -r %s\n",
				res.Session, cp.N, id, res.Session)
		}
	}
	if dryRun {
		b.WriteString("Dry run: nothing was changed.\n")
	}
	return b.String()
}

// writeCodeRewind writes the files of a code rewind.
func writeCodeRewind(b *strings.Builder, res host.RewindResult, dryRun bool) {
	switch {
	case dryRun && len(res.Plan.Changes) > 0:
		b.WriteString("The files that would go back:\n")
		writeChanges(b, res.Plan.Changes, false)
	case !dryRun && len(res.Restored) > 0:
		b.WriteString("The files restored:\n")
		writeChanges(b, res.Restored, true)
	case len(res.Plan.Kept) == 0:
		b.WriteString("The files are as they were at the checkpoint: nothing to restore.\n")
	}
	writeKept(b, res.Plan)
}

// writeKept names the files a rewind kept and the protected ones.
func writeKept(b *strings.Builder, p checkpoint.Plan) {
	if len(p.Kept) > 0 {
		b.WriteString("Kept, changed outside the agent since the checkpoint; --force restores them:\n")
		writeChanges(b, p.Kept, false)
	}
	if len(p.Protected) > 0 {
		b.WriteString("Protected, never written by a rewind (git metadata, agent configuration, ignored files):\n")
		writeChanges(b, p.Protected, false)
	}
}

// writeChanges writes one file a line: what restoring does (done: did),
// its path, and the lines it adds and removes.
func writeChanges(b *strings.Builder, list []checkpoint.Change, done bool) {
	list = slices.Clone(list)
	slices.SortFunc(list, func(x, y checkpoint.Change) int { return strings.Compare(x.Path, y.Path) })
	for _, c := range list {
		stat := fmt.Sprintf("+%d −%d", c.Added, c.Removed)
		if c.Binary {
			stat = "binary"
		}
		fmt.Fprintf(b, "  %s %s  %s\n", changeVerb(c.Action, done), showPath(c.Path), stat)
	}
}

// showPath is a file's path as the summaries show it: as it is, or quoted
// with Go's escapes when it holds what a terminal would act on or could
// not show (control characters, bytes that are not UTF-8, bidirectional
// overrides): the model chooses file names.
func showPath(p string) string {
	if !utf8.ValidString(p) {
		return strconv.Quote(p)
	}
	for _, r := range p {
		if !unicode.IsPrint(r) && r != ' ' || unicode.Is(unicode.Bidi_Control, r) {
			return strconv.Quote(p)
		}
	}
	return p
}

// changeVerb names what restoring does to a file, or did.
func changeVerb(a checkpoint.Action, done bool) string {
	if !done {
		return string(a)
	}
	switch a {
	case checkpoint.Create:
		return "recreated"
	case checkpoint.Delete:
		return "removed"
	}
	return "restored"
}

// quoteLine quotes a prompt's first line, cut to 60 characters.
func quoteLine(s string) string {
	if r := []rune(s); len(r) > 60 {
		s = string(r[:59]) + "…"
	}
	return fmt.Sprintf("%q", s)
}
