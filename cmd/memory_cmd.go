package cmd

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agent-dev/agent/memory"
	"github.com/agent-dev/agent/sessions"
	"github.com/spf13/cobra"
)

// newMemoryCmd builds "agent memory": search and reindex from the shell.
func newMemoryCmd(st Streams, getenv func(string) string, o *Options) *cobra.Command {
	c := &cobra.Command{
		Use:   "memory",
		Short: "Search the project's memory and past sessions; rebuild the search index",
		Long: `The memory of a project (the repository holding the working directory) is
MEMORY.md, which every new session starts with, daily notes (YYYY-MM-DD.md),
and every recorded session of the project. It is kept in the agent's data
directory, beside the session database: agent memory path prints where.

  agent memory search "deploy pipeline"
  agent memory reindex`,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown command %q for agent memory (see agent memory --help)", args[0])
			}
			return c.Help()
		},
	}
	c.PersistentFlags().StringVarP(&o.Dir, "cwd", "C", "", "working directory whose project to use (default the current directory)")
	with := memoryOpener{o: o, getenv: getenv}
	c.AddCommand(newMemorySearchCmd(st, with), newMemoryReindexCmd(st, with), newMemoryPathCmd(st, getenv, o))
	return c
}

// memoryOpener opens the session store and the memory of the working
// directory's project for one command.
type memoryOpener struct {
	o      *Options
	getenv func(string) string
}

// run calls f with the project's memory and the open store, closed after.
func (w memoryOpener) run(ctx context.Context, f func(*memory.Memory, *sessions.Store) error) error {
	dir, err := workingDir(w.o.Dir)
	if err != nil {
		return err
	}
	h, err := openHost(ctx, w.o, w.getenv, false)
	if err != nil {
		return err
	}
	defer h.Close()
	s, err := h.Store(ctx)
	if err != nil {
		return err
	}
	return f(memory.New(s, filepath.Dir(s.Path()), dir), s)
}

// newMemorySearchCmd builds "agent memory search QUERY".
func newMemorySearchCmd(st Streams, with memoryOpener) *cobra.Command {
	var max int
	var all bool
	search := &cobra.Command{
		Use:   "search QUERY",
		Short: "Search MEMORY.md, the daily notes and the project's sessions, best first",
		RunE: func(c *cobra.Command, args []string) error {
			query := strings.TrimSpace(strings.Join(args, " "))
			if query == "" {
				return usagef("agent memory search needs a QUERY")
			}
			return with.run(c.Context(), func(m *memory.Memory, _ *sessions.Store) error {
				rs, err := m.Search(c.Context(), query, memory.SearchOptions{Max: max, AllProjects: all})
				if err != nil {
					return usageError{Err: err}
				}
				_, err = fmt.Fprint(st.Out, memory.FormatResults(query, rs, all))
				return err
			})
		},
	}
	search.Flags().IntVarP(&max, "max-results", "n", memory.DefaultResults, "number of results (at most 50)")
	search.Flags().BoolVar(&all, "all-projects", false, "search every project, not only this one")
	return search
}

// newMemoryReindexCmd builds "agent memory reindex".
func newMemoryReindexCmd(st Streams, with memoryOpener) *cobra.Command {
	return &cobra.Command{
		Use:   "reindex",
		Short: "Rebuild the search index of the recorded sessions (it is kept current; this repairs it)",
		Args:  usageExactArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			return with.run(c.Context(), func(_ *memory.Memory, s *sessions.Store) error {
				n, err := s.Reindex(c.Context())
				if err == nil {
					_, err = fmt.Fprintf(st.Out, "indexed %d messages\n", n)
				}
				return err
			})
		},
	}
}

// newMemoryPathCmd builds "agent memory path".
func newMemoryPathCmd(st Streams, getenv func(string) string, o *Options) *cobra.Command {
	return &cobra.Command{
		Use:   "path",
		Short: "Print the project's memory directory",
		Args:  usageExactArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			dir, err := workingDir(o.Dir)
			if err != nil {
				return err
			}
			h, err := openHost(c.Context(), o, getenv, false)
			if err != nil {
				return err
			}
			defer h.Close()
			db, err := h.DB()
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(st.Out, memory.New(nil, filepath.Dir(db), dir).Dir())
			return err
		},
	}
}
