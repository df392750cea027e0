package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sessions"
	"github.com/agent-dev/agent/tools/shell"
	"github.com/spf13/cobra"
)

// exportOptions are the flags of "agent sessions export".
type exportOptions struct {
	Format string
	// Unmasked writes credentials as the store holds them (--unmasked);
	// otherwise they are masked (shell.MaskSecrets), as everywhere text
	// leaves the store.
	Unmasked bool
}

// Formats of export.
const formatMarkdown = "markdown"

func newSessionsExportCmd(e *sessionsEnv) *cobra.Command {
	opts := &exportOptions{}
	c := &cobra.Command{
		Use:   "export ID",
		Short: "Write a session completely to stdout: metadata, messages, tool calls with timings",
		Args:  usageExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if opts.Format != formatJSON && opts.Format != formatMarkdown {
				return usagef("unknown export format %q: use json or markdown", opts.Format)
			}
			ctx := c.Context()
			return e.withStore(ctx, func(s *sessions.Store) error {
				conv, err := loadRecorded(ctx, s, args[0])
				if err != nil {
					return err
				}
				var b bytes.Buffer
				if opts.Format == formatJSON {
					exp, err := exportOf(conv)
					if err != nil {
						return err
					}
					if err := writeIndentedJSON(&b, exp); err != nil {
						return err
					}
				} else {
					b.WriteString(renderMarkdown(conv) + markdownChildren(conv))
				}
				if opts.Unmasked {
					return writeOut(e.out, b.String())
				}
				return writeOut(e.out, shell.MaskSecrets(b.String()))
			})
		},
	}
	c.Flags().StringVar(&opts.Format, "format", formatJSON, "json (one object, everything but masked credentials) or markdown")
	c.Flags().BoolVar(&opts.Unmasked, "unmasked", false, "write credentials as the store holds them (they are masked otherwise)")
	return c
}

// exportJSON is the json export of a session. Message parts keep the
// store's neutral shapes ({"type":"text","text":...}, see
// sessions.MarshalParts); tool call arguments are the model's raw text,
// with the escapes of printable characters written out (readableJSON: the
// same JSON, "&&" rather than "\u0026\u0026").
type exportJSON struct {
	Session     sessionExport    `json:"session"`
	Messages    []messageJSON    `json:"messages"`
	ToolCalls   []toolCallExport `json:"tool_calls"`
	Compactions []compactionJSON `json:"compactions"`
	// Subagents are the sessions the task calls started, each exported
	// whole.
	Subagents []subagentExport `json:"subagents"`
}

// compactionJSON is a compaction point: the messages before first_seq were
// replaced by summary in the requests after it.
type compactionJSON struct {
	FirstSeq     int       `json:"first_seq"`
	Summary      string    `json:"summary"`
	BeforeTokens int       `json:"before_tokens"`
	AfterTokens  int       `json:"after_tokens"`
	CreatedAt    time.Time `json:"created_at"`
}

type sessionExport struct {
	summaryJSON
	SystemPrompt string `json:"system_prompt"`
	// Todos is the session's todo list (todo_write's), [] when empty.
	Todos []sessions.Todo `json:"todos"`
}

type messageJSON struct {
	Seq       int             `json:"seq"`
	Role      string          `json:"role"`
	CreatedAt time.Time       `json:"created_at"`
	Tokens    tokensJSON      `json:"tokens"`
	Parts     json.RawMessage `json:"parts"`
}

type toolCallExport struct {
	MessageSeq int        `json:"message_seq"`
	CallID     string     `json:"call_id"`
	Name       string     `json:"name"`
	Arguments  string     `json:"arguments"`
	Status     string     `json:"status"`
	Result     string     `json:"result"`
	IsError    bool       `json:"is_error"`
	StartedAt  *time.Time `json:"started_at"`
	FinishedAt *time.Time `json:"finished_at"`
	DurationMS *int64     `json:"duration_ms"`
	// ApprovalWaitMS is how long the approval took to decide (a person's
	// answer), apart from duration_ms, the run; null when none was asked
	// or it was not recorded (before schema version 7).
	ApprovalWaitMS *int64 `json:"approval_wait_ms"`
	// Decision is the approval decision ("allowed: person: once", `denied
	// by rule "rm"`); null when the call needed none.
	Decision *string `json:"decision"`
}

// readableParts returns parts with each tool call's arguments made
// readable (readableJSON); parts is not changed.
func readableParts(parts []providers.Part) []providers.Part {
	out := make([]providers.Part, len(parts))
	for i, p := range parts {
		if c, ok := p.(providers.ToolCall); ok {
			c.Arguments = readableJSON(c.Arguments)
			p = c
		}
		out[i] = p
	}
	return out
}

func exportOf(conv *recordedSession) (*exportJSON, error) {
	exp := &exportJSON{
		Session:  sessionExport{summaryOf(conv.session.Summary), conv.session.SystemPrompt, conv.todos},
		Messages: make([]messageJSON, len(conv.messages)), ToolCalls: make([]toolCallExport, len(conv.calls)),
		Compactions: make([]compactionJSON, len(conv.compactions)),
	}
	for i, c := range conv.compactions {
		exp.Compactions[i] = compactionJSON{FirstSeq: c.FirstSeq, Summary: c.Summary, BeforeTokens: c.BeforeTokens,
			AfterTokens: c.AfterTokens, CreatedAt: c.CreatedAt.UTC()}
	}
	for i, m := range conv.messages {
		parts, err := sessions.MarshalParts(readableParts(m.Message.Parts))
		if err != nil {
			return nil, fmt.Errorf("exporting message %d: %w", m.Seq, err)
		}
		exp.Messages[i] = messageJSON{Seq: m.Seq, Role: string(m.Message.Role), CreatedAt: m.CreatedAt.UTC(), Tokens: tokensOf(m.Usage), Parts: parts}
	}
	for i, c := range conv.calls {
		tc := toolCallExport{MessageSeq: c.MessageSeq, CallID: c.CallID, Name: c.Name, Arguments: readableJSON(c.Arguments),
			Status: string(c.Status), Result: c.Result, IsError: c.IsError}
		if !c.StartedAt.IsZero() {
			t := c.StartedAt.UTC()
			tc.StartedAt = &t
		}
		if !c.FinishedAt.IsZero() {
			t, ms := c.FinishedAt.UTC(), c.Duration.Milliseconds()
			tc.FinishedAt, tc.DurationMS = &t, &ms
		}
		if c.Decision != "" {
			tc.Decision = &c.Decision
		}
		if c.ApprovalWait > 0 {
			ms := c.ApprovalWait.Milliseconds()
			tc.ApprovalWaitMS = &ms
		}
		exp.ToolCalls[i] = tc
	}
	var err error
	exp.Subagents, err = exportChildren(conv)
	return exp, err
}

// renderMarkdown writes the whole session as Markdown: metadata, the
// system prompt, then a heading per turn (a user message and what followed)
// and per message, with tool arguments and results in mdFence blocks.
func renderMarkdown(conv *recordedSession) string {
	var b strings.Builder
	ss := conv.session
	fmt.Fprintf(&b, "# %s\n\n", orUntitled(ss.Title))
	for _, kv := range [][2]string{
		{"id", ss.ID}, {"directory", ss.Dir}, {"provider", orDash(ss.Provider)}, {"model", orDash(ss.Model)},
		{"status", string(ss.Status)}, {"created", ss.CreatedAt.UTC().Format(time.RFC3339)},
		{"updated", ss.UpdatedAt.UTC().Format(time.RFC3339)}, {"messages", fmt.Sprint(ss.Messages)},
		{"tokens", fmt.Sprintf("%d in, %d out, %d cached in, %d reasoning, %d written to the cache",
			ss.Usage.InputTokens, ss.Usage.OutputTokens, ss.Usage.CachedInputTokens, ss.Usage.ReasoningTokens, ss.Usage.CacheWriteTokens)},
	} {
		fmt.Fprintf(&b, "- **%s**: %s\n", kv[0], kv[1])
	}
	if ss.SystemPrompt != "" {
		b.WriteString("\n## System prompt\n\n" + mdFence(ss.SystemPrompt, "text"))
	}
	idx := conv.callRecords()
	turn := 0
	for _, m := range conv.messages {
		for _, c := range conv.compactedBefore(m.Seq) {
			fmt.Fprintf(&b, "\n> **%s.** Summary:\n\n%s", compactionLine(c), mdFence(c.Summary, "text"))
		}
		role := m.Message.Role
		if role == providers.RoleUser || turn == 0 {
			turn++
			fmt.Fprintf(&b, "\n## Turn %d\n", turn)
		}
		if role != providers.RoleTool {
			fmt.Fprintf(&b, "\n### %d. %s\n\n_%s_", m.Seq, role, m.CreatedAt.UTC().Format(time.RFC3339))
			if m.Usage != (providers.Usage{}) {
				fmt.Fprintf(&b, " · %d tokens in, %d out", m.Usage.InputTokens, m.Usage.OutputTokens)
			}
			b.WriteString("\n")
		}
		for _, p := range m.Message.Parts {
			markdownPart(&b, p, idx, m.Seq)
		}
	}
	for _, c := range conv.compactedBefore(-1) {
		fmt.Fprintf(&b, "\n> **%s.** Summary:\n\n%s", compactionLine(c), mdFence(c.Summary, "text"))
	}
	return b.String()
}

// markdownPart writes one part of message seq as Markdown, a tool call
// with its record from idx.
func markdownPart(b *strings.Builder, p providers.Part, idx callRecords, seq int) {
	switch p := p.(type) {
	case providers.Text:
		b.WriteString("\n" + strings.TrimRight(p.Text, "\n") + "\n")
	case providers.Reasoning:
		b.WriteString("\n**Reasoning**\n\n" + mdFence(p.Text, "text"))
	case providers.WebSearch, providers.Citation:
		b.WriteString("\n_" + webLine(p) + "_\n")
	case providers.ToolCall:
		fmt.Fprintf(b, "\n**Tool call** `%s` (id `%s`)", p.Name, p.ID)
		if rec, ok := idx[recordedCallKey{seq, p.ID}]; ok {
			b.WriteString(" · " + callTiming(rec))
			if rec.Decision != "" {
				b.WriteString(" · " + mdCode(rec.Decision))
			}
		}
		b.WriteString("\n\n" + mdFence(indentJSON(p.Arguments), "json"))
	case providers.ToolResult:
		status := ""
		if p.IsError {
			status = " · error"
		}
		fmt.Fprintf(b, "\n### %d. tool result `%s` (id `%s`)%s\n\n", seq, p.Name, p.CallID, status)
		b.WriteString(mdFence(p.Content, "text"))
	}
}

// callTiming describes a tool call record's status and times.
func callTiming(rec sessions.ToolCallRecord) string {
	s := string(rec.Status)
	if !rec.StartedAt.IsZero() {
		s += ", started " + rec.StartedAt.UTC().Format(time.RFC3339Nano)
	}
	if !rec.FinishedAt.IsZero() {
		s += fmt.Sprintf(", finished %s, %d ms", rec.FinishedAt.UTC().Format(time.RFC3339Nano), rec.Duration.Milliseconds())
	}
	if rec.ApprovalWait > 0 {
		s += fmt.Sprintf(" (and %d ms waiting for approval)", rec.ApprovalWait.Milliseconds())
	}
	return s
}

// mdFence puts s in a mdFence code block whose fence is longer than any run
// of backticks in s.
func mdFence(s, lang string) string {
	f := strings.Repeat("`", max(3, longestBackticks(s)+1))
	return f + lang + "\n" + strings.TrimRight(s, "\n") + "\n" + f + "\n"
}

// mdCode puts one line s in an inline code span whose delimiter is longer
// than any run of backticks in s (padded with spaces when s starts or ends
// with one, which Markdown strips again).
func mdCode(s string) string {
	f := strings.Repeat("`", longestBackticks(s)+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return f + s + f
}

// longestBackticks is the length of the longest run of backticks in s.
func longestBackticks(s string) int {
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}

// indentJSON indents valid JSON and returns anything else unchanged.
func indentJSON(s string) string {
	var b bytes.Buffer
	if json.Indent(&b, []byte(s), "", "  ") != nil {
		return s
	}
	return readableJSON(b.String())
}
