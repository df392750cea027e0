package cmd

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/agent-dev/agent/providers"
)

// totalUsage is the session's usage with its subagents', recursively.
func (conv *recordedSession) totalUsage() providers.Usage {
	u := conv.session.Usage
	for _, c := range conv.children {
		u = u.Add(c.totalUsage())
	}
	return u
}

// renderSubagents lists a session's subagents for sessions show: id,
// description, agent, status, tokens and how long each ran; "" when it
// has none. agent sessions show ID shows a child's conversation.
func renderSubagents(conv *recordedSession) string {
	if len(conv.children) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nsubagents (agent sessions show ID shows one's conversation):\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  ID\tDESCRIPTION\tAGENT\tSTATUS\tTOKENS IN/OUT\tDURATION\tCALL")
	for _, c := range conv.children {
		ss := c.session
		u := c.totalUsage()
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%d/%d\t%s\t%s\n", ss.ID, cut(orUntitled(ss.Title), 40), orDefault(ss.Agent), ss.Status,
			u.InputTokens, u.OutputTokens, ss.UpdatedAt.Sub(ss.CreatedAt).Round(100*time.Millisecond), ss.ParentCallID)
	}
	tw.Flush()
	return b.String()
}

func orDefault(s string) string {
	if s == "" {
		return "default"
	}
	return s
}

// subagentExport is a subagent's session in a json export: the call that
// started it and the child's own export, its subagents included.
type subagentExport struct {
	ParentCallID string      `json:"parent_call_id"`
	Agent        string      `json:"agent"`
	Export       *exportJSON `json:"export"`
}

// exportChildren exports conv's subagents.
func exportChildren(conv *recordedSession) ([]subagentExport, error) {
	out := []subagentExport{}
	for _, c := range conv.children {
		exp, err := exportOf(c)
		if err != nil {
			return nil, fmt.Errorf("exporting subagent %s: %w", c.session.ID, err)
		}
		out = append(out, subagentExport{ParentCallID: c.session.ParentCallID, Agent: orDefault(c.session.Agent), Export: exp})
	}
	return out, nil
}

// markdownChildren is the Markdown of conv's subagents, each under its own
// heading after the parent's conversation.
func markdownChildren(conv *recordedSession) string {
	var b strings.Builder
	for _, c := range conv.children {
		fmt.Fprintf(&b, "\n\n---\n\n# Subagent %s (call %s, agent %s)\n\n", c.session.ID, c.session.ParentCallID, orDefault(c.session.Agent))
		b.WriteString(renderMarkdown(c))
	}
	return b.String()
}
