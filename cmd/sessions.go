package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sessions"
	"github.com/spf13/cobra"
)

// sessionsEnv is what the sessions commands need: where to write, how to
// open the store, which directory "this directory" is, and the clock that
// relative times are measured from.
type sessionsEnv struct {
	out  io.Writer
	open func(context.Context) (*sessions.Store, error)
	dir  func() (string, error)
	now  func() time.Time
	// price prices a session's model for stats.
	price func() pricer
}

// withStore opens the store, runs f and closes the store again.
func (e *sessionsEnv) withStore(ctx context.Context, f func(*sessions.Store) error) error {
	s, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	return f(s)
}

// scope is the directory a list or stats command covers: "" for --all.
func (e *sessionsEnv) scope(all bool) (string, error) {
	if all {
		return "", nil
	}
	return e.dir()
}

// newSessionsCmd builds "agent sessions" and its subcommands. o holds the
// root's persistent flags (--db); -C/--cwd is redefined here, on the same
// field, so that it works before and after "sessions".
func newSessionsCmd(st Streams, getenv func(string) string, o *Options) *cobra.Command {
	e := &sessionsEnv{
		out:  st.Out,
		open: func(ctx context.Context) (*sessions.Store, error) { return openStore(ctx, o, getenv) },
		dir:  func() (string, error) { return workingDir(o.Dir) },
		now:  time.Now,
		price: func() pricer {
			// An unreadable config file leaves the table alone: stats
			// must not fail for a config problem.
			h, err := openHost(context.Background(), o, getenv, false)
			if err != nil {
				return providers.PriceOf
			}
			defer h.Close()
			return h.ProfilePricer()
		},
	}
	c := &cobra.Command{
		Use:   "sessions",
		Short: "List, show, export, remove and measure recorded sessions",
		Long: `Every conversation is recorded in the session database (--db). These commands
read it; IDs may be shortened to a unique prefix of at least 4 characters.

  agent sessions list
  agent sessions show 3f2a
  agent sessions export 3f2a --format markdown > session.md`,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown command %q for agent sessions (see agent sessions --help)", args[0])
			}
			return c.Help()
		},
	}
	c.PersistentFlags().StringVarP(&o.Dir, "cwd", "C", "", "working directory whose sessions to use (default the current directory)")
	c.AddCommand(newSessionsListCmd(e), newSessionsShowCmd(e), newSessionsExportCmd(e), newSessionsRmCmd(e), newSessionsStatsCmd(e))
	return c
}

// usageExactArgs accepts n arguments (0, or 1: a session id); anything
// else is a usage error.
func usageExactArgs(n int) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		switch {
		case len(args) == n:
			return nil
		case n == 0:
			return usagef("%s takes no arguments, got %q", c.CommandPath(), args)
		}
		return usagef("%s needs one session ID (agent sessions list shows them), got %d arguments", c.CommandPath(), len(args))
	}
}

// getSession resolves id (or a unique prefix) to its session; an unknown or
// ambiguous id is a usage error.
func getSession(ctx context.Context, s *sessions.Store, id string) (*sessions.Session, error) {
	ss, err := s.Get(ctx, id)
	if err != nil {
		return nil, host.SessionError(err)
	}
	return ss, nil
}

// listOptions are the flags of "agent sessions list".
type listOptions struct{ All, JSON bool }

func newSessionsListCmd(e *sessionsEnv) *cobra.Command {
	opts := &listOptions{}
	c := &cobra.Command{
		Use:   "list",
		Short: "List the sessions of this directory, most recently updated first",
		Args:  usageExactArgs(0),
		RunE:  func(c *cobra.Command, _ []string) error { return runSessionsList(c.Context(), e, opts) },
	}
	c.Flags().BoolVar(&opts.All, "all", false, "list the sessions of every directory")
	c.Flags().BoolVar(&opts.JSON, "json", false, "print a JSON array")
	return c
}

// tokensJSON is a usage in JSON, every key always present.
type tokensJSON struct {
	Input     int `json:"input"`
	Output    int `json:"output"`
	Cached    int `json:"cached_input"`
	Reasoning int `json:"reasoning"`
	// CacheWrite counts the input tokens written to the prompt cache
	// (Input includes them, as it includes Cached, the ones read).
	CacheWrite int `json:"cache_write"`
}

func tokensOf(u providers.Usage) tokensJSON {
	return tokensJSON{u.InputTokens, u.OutputTokens, u.CachedInputTokens, u.ReasoningTokens, u.CacheWriteTokens}
}

// summaryJSON is a session in list and export output.
type summaryJSON struct {
	ID        string     `json:"id"`
	Title     string     `json:"title"`
	Dir       string     `json:"dir"`
	Provider  string     `json:"provider"`
	Model     string     `json:"model"`
	Status    string     `json:"status"`
	CreatedAt time.Time  `json:"created_at"`
	UpdatedAt time.Time  `json:"updated_at"`
	Messages  int        `json:"messages"`
	Tokens    tokensJSON `json:"tokens"`
}

func summaryOf(s sessions.Summary) summaryJSON {
	return summaryJSON{
		ID: s.ID, Title: s.Title, Dir: s.Dir, Provider: s.Provider, Model: s.Model, Status: string(s.Status),
		CreatedAt: s.CreatedAt.UTC(), UpdatedAt: s.UpdatedAt.UTC(), Messages: s.Messages, Tokens: tokensOf(s.Usage),
	}
}

func runSessionsList(ctx context.Context, e *sessionsEnv, opts *listOptions) error {
	dir, err := e.scope(opts.All)
	if err != nil {
		return err
	}
	var list []sessions.Summary
	if err := e.withStore(ctx, func(s *sessions.Store) (err error) {
		list, err = s.List(ctx, sessions.ListOptions{Dir: dir})
		return err
	}); err != nil {
		return err
	}
	if opts.JSON {
		out := make([]summaryJSON, len(list))
		for i, s := range list {
			out[i] = summaryOf(s)
		}
		return writeIndentedJSON(e.out, out)
	}
	if len(list) == 0 {
		where := "yet"
		if dir != "" {
			where = "in " + dir + " yet"
		}
		return writeOut(e.out, fmt.Sprintf("No sessions %s. Start one with: agent -p \"PROMPT\" (or agent for the interface).\n", where))
	}
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	header := "ID\tTITLE\tUPDATED\tMESSAGES\tTOKENS IN/OUT"
	if opts.All {
		header += "\tDIR"
	}
	fmt.Fprintln(tw, header)
	for _, s := range list {
		title := s.Title
		if title == "" {
			title = "(untitled)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d/%d", s.ID, cut(title, 50), relativeTime(s.UpdatedAt, e.now()),
			s.Messages, s.Usage.InputTokens, s.Usage.OutputTokens)
		if opts.All {
			fmt.Fprintf(tw, "\t%s", s.Dir)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	return writeOut(e.out, b.String())
}

// relativeTime says how long before now t was: "just now", "5m ago", "3h
// ago", "2d ago", and the date for anything older than 30 days.
func relativeTime(t, now time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d/time.Minute))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh ago", int(d/time.Hour))
	case d < 30*24*time.Hour:
		return fmt.Sprintf("%dd ago", int(d/(24*time.Hour)))
	}
	return t.Local().Format("2006-01-02")
}

func newSessionsRmCmd(e *sessionsEnv) *cobra.Command {
	var olderThan string
	c := &cobra.Command{
		Use:     "rm ID | rm --older-than AGE",
		Aliases: []string{"delete"},
		Short:   "Delete a session (or every session unused for AGE) with its messages, tool calls and subagents",
		Args: func(c *cobra.Command, args []string) error {
			if olderThan != "" {
				return usageExactArgs(0)(c, args)
			}
			return usageExactArgs(1)(c, args)
		},
		RunE: func(c *cobra.Command, args []string) error {
			ctx := c.Context()
			if olderThan != "" {
				age, err := parseAge(olderThan)
				if err != nil {
					return err
				}
				return e.withStore(ctx, func(s *sessions.Store) error { return removeOlder(ctx, s, age, e.out) })
			}
			return e.withStore(ctx, func(s *sessions.Store) error {
				ss, err := getSession(ctx, s, args[0])
				if err != nil {
					return err
				}
				if err := s.Delete(ctx, ss.ID); err != nil {
					return host.SessionError(err)
				}
				return writeOut(e.out, fmt.Sprintf("removed session %s: %s (%d messages, %s)\n",
					ss.ID, orUntitled(ss.Title), ss.Messages, ss.Dir))
			})
		},
	}
	c.Flags().StringVar(&olderThan, "older-than", "", "delete every session last used longer ago than this (30d, 12h), but those in use")
	return c
}

// statsOptions are the flags of "agent sessions stats".
type statsOptions struct{ All, JSON bool }

func newSessionsStatsCmd(e *sessionsEnv) *cobra.Command {
	opts := &statsOptions{}
	c := &cobra.Command{
		Use:   "stats",
		Short: "Per tool: calls, failure rate, median and p95 run time, denials, approval wait; per session: tokens, cache hit rate, cost",
		Args:  usageExactArgs(0),
		RunE:  func(c *cobra.Command, _ []string) error { return runSessionsStats(c.Context(), e, opts) },
	}
	c.Flags().BoolVar(&opts.All, "all", false, "count the sessions of every directory")
	c.Flags().BoolVar(&opts.JSON, "json", false, `print a JSON object {"tools": [...], "sessions": [...]}`)
	return c
}

// toolStatsJSON is one tool's stats in JSON.
type toolStatsJSON struct {
	Name           string  `json:"name"`
	Calls          int     `json:"calls"`
	Failures       int     `json:"failures"`
	FailurePercent float64 `json:"failure_percent"`
	MedianMS       float64 `json:"median_ms"`
	P95MS          float64 `json:"p95_ms"`
	Unfinished     int     `json:"unfinished"`
	Denied         int     `json:"denied"`
	Asked          int     `json:"asked"`
	WaitMedianMS   float64 `json:"approval_wait_median_ms"`
}

func runSessionsStats(ctx context.Context, e *sessionsEnv, opts *statsOptions) error {
	dir, err := e.scope(opts.All)
	if err != nil {
		return err
	}
	var stats []sessions.ToolStats
	var list []sessions.Summary
	if err := e.withStore(ctx, func(s *sessions.Store) (err error) {
		if stats, err = s.Stats(ctx, dir); err != nil {
			return err
		}
		list, err = s.List(ctx, sessions.ListOptions{Dir: dir})
		return err
	}); err != nil {
		return err
	}
	var price pricer = providers.PriceOf
	if e.price != nil {
		price = e.price()
	}
	tokens := sessionTokens(list, price)
	if opts.JSON {
		out := struct {
			Tools    []toolStatsJSON     `json:"tools"`
			Sessions []sessionTokensJSON `json:"sessions"`
		}{make([]toolStatsJSON, len(stats)), tokens}
		for i, t := range stats {
			out.Tools[i] = toolStatsJSON{t.Name, t.Calls, t.Failures, 100 * t.FailureRate, t.MedianMS, t.P95MS, t.Unfinished, t.Denied, t.Asked, t.WaitMedianMS}
		}
		return writeIndentedJSON(e.out, out)
	}
	var b bytes.Buffer
	if len(stats) == 0 {
		where := ""
		if dir != "" {
			where = " in " + dir
		}
		fmt.Fprintf(&b, "No tool calls recorded%s yet.\n", where)
	} else {
		writeToolStats(&b, stats)
	}
	if len(tokens) > 0 {
		b.WriteString("\n")
		writeSessionTokens(&b, tokens)
	}
	return writeOut(e.out, b.String())
}

// writeToolStats prints the per-tool table. Durations are run times; the
// time people took to approve is the WAIT column (median over the ASKED
// calls), and denied calls count in DENIED only, not as failures.
func writeToolStats(b io.Writer, stats []sessions.ToolStats) {
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TOOL\tCALLS\tFAILED\tMEDIAN\tP95\tDENIED\tASKED\tWAIT\tUNFINISHED")
	for _, t := range stats {
		wait := "-"
		if t.Asked > 0 {
			wait = fmt.Sprintf("%.1f ms", t.WaitMedianMS)
		}
		if t.Calls == 0 { // no call ran: no rate, no durations
			fmt.Fprintf(tw, "%s\t0\t-\t-\t-\t%d\t%d\t%s\t%d\n", t.Name, t.Denied, t.Asked, wait, t.Unfinished)
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%.1f%%\t%.1f ms\t%.1f ms\t%d\t%d\t%s\t%d\n", t.Name, t.Calls, 100*t.FailureRate, t.MedianMS, t.P95MS, t.Denied, t.Asked, wait, t.Unfinished)
	}
	tw.Flush()
}

// writeIndentedJSON writes v as indented JSON.
func writeIndentedJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // "&&" reads as itself, not \u0026\u0026
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	return nil
}

func writeOut(w io.Writer, s string) error {
	if _, err := io.WriteString(w, s); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	return nil
}
