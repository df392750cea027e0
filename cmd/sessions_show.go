package cmd

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sessions"
)

func newSessionsShowCmd(e *sessionsEnv) *cobra.Command {
	return &cobra.Command{
		Use:   "show ID",
		Short: "Print a session's conversation as text (long tool results are cut)",
		Args:  usageExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			ctx := c.Context()
			return e.withStore(ctx, func(s *sessions.Store) error {
				conv, err := loadRecorded(ctx, s, args[0])
				if err != nil {
					return err
				}
				l, err := loadLineage(ctx, s, conv.session)
				if err != nil {
					return err
				}
				return writeOut(e.out, renderShow(conv, l, e.now())+renderSubagents(conv))
			})
		},
	}
}

// recordedSession is everything recorded of one session.
type recordedSession struct {
	session     *sessions.Session
	messages    []sessions.MessageRecord
	calls       []sessions.ToolCallRecord
	compactions []sessions.CompactionRecord
	// children are the subagents the session's task calls started, each
	// recorded whole.
	children []*recordedSession
	// todos is the session's todo list.
	todos []sessions.Todo
}

func loadRecorded(ctx context.Context, s *sessions.Store, id string) (*recordedSession, error) {
	ss, err := getSession(ctx, s, id)
	if err != nil {
		return nil, err
	}
	msgs, err := s.MessageRecords(ctx, ss.ID)
	if err != nil {
		return nil, host.SessionError(err)
	}
	calls, err := s.ToolCalls(ctx, ss.ID)
	if err != nil {
		return nil, host.SessionError(err)
	}
	compactions, err := s.Compactions(ctx, ss.ID)
	if err != nil {
		return nil, host.SessionError(err)
	}
	kids, err := s.Children(ctx, ss.ID)
	if err != nil {
		return nil, host.SessionError(err)
	}
	todos, err := s.Todos(ctx, ss.ID)
	if err != nil {
		return nil, host.SessionError(err)
	}
	rs := &recordedSession{session: ss, messages: msgs, calls: calls, compactions: compactions, todos: todos}
	for _, k := range kids {
		child, err := loadRecorded(ctx, s, k.ID)
		if err != nil {
			return nil, err
		}
		rs.children = append(rs.children, child)
	}
	return rs, nil
}

// compactedBefore returns the compactions whose first kept message is seq
// (with seq -1: those that kept no message, after the last), oldest first.
func (conv *recordedSession) compactedBefore(seq int) []sessions.CompactionRecord {
	last := 0
	if n := len(conv.messages); n > 0 {
		last = conv.messages[n-1].Seq
	}
	var out []sessions.CompactionRecord
	for _, c := range conv.compactions {
		if c.FirstSeq == seq || (seq == -1 && c.FirstSeq > last) {
			out = append(out, c)
		}
	}
	return out
}

// compactionLine says in one line that the messages before seq were
// compacted.
func compactionLine(c sessions.CompactionRecord) string {
	return fmt.Sprintf("compacted: the messages before this point were summarised (about %d → %d tokens); the requests after it send the summary instead",
		c.BeforeTokens, c.AfterTokens)
}

// callRecords finds the tool call record of a call: by the seq of the
// assistant message that asked for it and its id (ids repeat across turns
// with some servers).
type callRecords map[recordedCallKey]sessions.ToolCallRecord

type recordedCallKey struct {
	seq int
	id  string
}

func (conv *recordedSession) callRecords() callRecords {
	idx := callRecords{}
	for _, c := range conv.calls {
		idx[recordedCallKey{c.MessageSeq, c.CallID}] = c
	}
	return idx
}

// showLines is how many lines of a tool result show prints.
const showLines = 20

func renderShow(conv *recordedSession, l lineage, now time.Time) string {
	var b strings.Builder
	ss := conv.session
	fmt.Fprintf(&b, "session %s: %s\n", ss.ID, orUntitled(ss.Title))
	fmt.Fprintf(&b, "%s · %s · %s · updated %s · %d messages · %d/%d tokens in/out\n",
		ss.Dir, orDash(ss.Model), ss.Status, relativeTime(ss.UpdatedAt, now), ss.Messages, ss.Usage.InputTokens, ss.Usage.OutputTokens)
	if ss.Status == sessions.StatusBudget {
		b.WriteString("its last turn stopped at its spend cap (--max-budget-usd, --max-tokens-total) before a final answer\n")
	}
	if ss.Parent != "" {
		fmt.Fprintf(&b, "subagent of session %s (its call %s)\n", ss.Parent, ss.ParentCallID)
	}
	if len(conv.children) > 0 {
		all := conv.totalUsage()
		fmt.Fprintf(&b, "with its %d subagents: %d/%d tokens in/out\n", len(conv.children), all.InputTokens, all.OutputTokens)
	}
	b.WriteString(renderLineage(ss.ID, l))
	idx := conv.callRecords()
	lastAssistant := 0
	for _, m := range conv.messages {
		for _, c := range conv.compactedBefore(m.Seq) {
			fmt.Fprintf(&b, "\n── %s ──\n%s\n", compactionLine(c), headLines(c.Summary, showLines, ss.ID))
		}
		if m.Message.Role == providers.RoleAssistant {
			lastAssistant = m.Seq
		}
		if m.Message.Role != providers.RoleTool {
			fmt.Fprintf(&b, "\n▸ %s\n", m.Message.Role)
		}
		for _, p := range m.Message.Parts {
			showPart(&b, p, idx, m.Seq, lastAssistant, ss.ID)
		}
	}
	for _, c := range conv.compactedBefore(-1) {
		fmt.Fprintf(&b, "\n── %s ──\n%s\n", compactionLine(c), headLines(c.Summary, showLines, ss.ID))
	}
	return b.String()
}

// showPart writes one part of message seq (the last assistant message
// before it is lastAssistant, whose calls a tool result answers), with
// its call's record from idx.
func showPart(b *strings.Builder, p providers.Part, idx callRecords, seq, lastAssistant int, id string) {
	switch p := p.(type) {
	case providers.Text:
		b.WriteString(strings.TrimRight(p.Text, "\n") + "\n")
	case providers.Reasoning:
		fmt.Fprintf(b, "(reasoning omitted, %d characters)\n", len([]rune(p.Text)))
	case providers.WebSearch, providers.Citation:
		b.WriteString(webLine(p) + "\n")
	case providers.ToolCall:
		fmt.Fprintf(b, "→ %s %s", p.Name, cut(readableJSON(p.Arguments), 300))
		if rec, ok := idx[recordedCallKey{seq, p.ID}]; ok {
			if rec.Decision != "" {
				fmt.Fprintf(b, "  [%s]", rec.Decision)
			}
			if rec.Status != sessions.ToolCompleted && rec.Status != sessions.ToolFailed {
				fmt.Fprintf(b, "  [%s: never finished]", rec.Status)
			}
		}
		b.WriteString("\n")
	case providers.ToolResult:
		status := "ok"
		if p.IsError {
			status = "error"
		}
		if rec, ok := idx[recordedCallKey{lastAssistant, p.CallID}]; ok && !rec.FinishedAt.IsZero() {
			status += fmt.Sprintf(" · %d ms", rec.Duration.Milliseconds())
			if rec.ApprovalWait > 0 {
				status += fmt.Sprintf(" · %d ms waiting for approval", rec.ApprovalWait.Milliseconds())
			}
		}
		fmt.Fprintf(b, "\n▸ tool %s (%s)\n", p.Name, status)
		b.WriteString(headLines(p.Content, showLines, id))
	}
}

// headLines returns the first n lines of s, and a note of how many more
// there are and where to see them.
func headLines(s string, n int, id string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) <= n {
		return strings.Join(lines, "\n") + "\n"
	}
	return strings.Join(lines[:n], "\n") +
		fmt.Sprintf("\n… %d more lines (agent sessions export %s shows everything)\n", len(lines)-n, id)
}

func orUntitled(s string) string {
	if s == "" {
		return "(untitled)"
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
