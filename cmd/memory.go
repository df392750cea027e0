package cmd

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-dev/agent/memory"
	"github.com/agent-dev/agent/sessions"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/picker"
	"github.com/agent-dev/agent/tools/web"
	"github.com/agent-dev/agent/turn"
	"github.com/spf13/cobra"
)

// addMemory gives the agent the memory of its project, kept beside the
// session database, and the memory tools (memory_search and memory_get,
// read-only; memory_write, approved like a file change). A search leaves
// out the session of its call.
func (a *agent) addMemory(store *sessions.Store) error {
	a.memory = memory.New(store, filepath.Dir(store.Path()), a.dir)
	if e := a.embedder(); e != nil {
		a.memory.UseEmbeddings(e)
	}
	for _, t := range memory.Tools(a.memory) {
		a.builtins = append(a.builtins, t)
		a.memoryTools = append(a.memoryTools, t.Definition().Name)
	}
	reg, err := tools.NewRegistry(a.builtins...)
	if err != nil {
		return fmt.Errorf("building the tools: %w", err)
	}
	a.registry = reg
	a.catalog.Set(picker.New(reg, a.mode, a.toolGroups()...))
	return nil
}

// embedder is the embeddings client of the provider's endpoint ([memory]
// embeddings, embedding_model), nil when they are off.
func (a *agent) embedder() *memory.Embedder {
	if a.settings.Embeddings != "auto" {
		return nil
	}
	return memory.NewEmbedder(a.settings.BaseURL, a.settings.APIKey, a.settings.EmbeddingModel, nil)
}

// toolGroups are the pick groups of the built-in tools: the file and
// shell tools, picked together at the first pick, and the memory tools,
// picked together when the model first wants one, so that a session that
// never looks into memory carries only their briefs; web_fetch is a group
// of its own, picked when the model first wants the web.
func (a *agent) toolGroups() [][]string {
	var core []string
	for _, n := range a.registry.Names() {
		if !slices.Contains(a.memoryTools, n) && n != web.ToolName {
			core = append(core, n)
		}
	}
	return [][]string{core, a.memoryTools, {web.ToolName}}
}

// memoryPrompt is the system prompt's MEMORY.md section; "" without one.
func (a *agent) memoryPrompt() string {
	if a.memory == nil {
		return ""
	}
	return a.memory.Prompt()
}

// rememberPrompt saves a headless prompt that is a "#" note (turn.MemoryNote)
// to the project's MEMORY.md instead of sending it, and reports whether it
// was one. Only a prompt given as an argument counts: piped input that
// starts with "#" is a markdown document to send.
func rememberPrompt(o *Options, st Streams, getenv func(string) string, dir, prompt string) (bool, error) {
	note, ok := turn.MemoryNote(o.Prompt)
	if !ok || prompt != o.Prompt {
		return false, nil
	}
	db, err := dbPath(o, getenv)
	if err != nil {
		return true, err
	}
	path, err := memory.New(nil, filepath.Dir(db), dir).Remember(note, true)
	if err != nil {
		return true, err
	}
	fmt.Fprintf(st.Err, "agent: saved to memory (%s); new sessions of this project start with it\n", path)
	return true, nil
}

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
	s, err := openStore(ctx, w.o, w.getenv)
	if err != nil {
		return err
	}
	defer s.Close()
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
					return usageError{err}
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
			db, err := dbPath(o, getenv)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(st.Out, memory.New(nil, filepath.Dir(db), dir).Dir())
			return err
		},
	}
}
