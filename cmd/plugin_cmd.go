package cmd

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agent-dev/agent/plugin"
)

// newPluginCmd builds `agent plugin`: install, list, enable, disable and
// remove Claude Code plugins, and add the marketplaces they come from
// (the shape of Claude Code's `claude plugin` commands).
func newPluginCmd(st Streams, getenv func(string) string, o *Options) *cobra.Command {
	c := &cobra.Command{Use: "plugin", Short: "Claude Code plugins: agent plugin install|list|enable|disable|remove, agent plugin marketplace add|list|remove",
		Args: cobra.NoArgs}
	c.PersistentFlags().StringVar(&o.ConfigPath, "config", "", "config file (default $XDG_CONFIG_HOME/agent/config.toml)")
	c.PersistentFlags().StringVarP(&o.Dir, "cwd", "C", "", "working directory (default the current directory)")
	c.AddCommand(newPluginInstallCmd(st, getenv, o), newPluginListCmd(st, getenv, o),
		newPluginEnableCmd(st, getenv, o, true), newPluginEnableCmd(st, getenv, o, false), newPluginRemoveCmd(st, getenv, o),
		newMarketplaceCmd(st, getenv, o))
	return c
}

// withStore opens the host of o's flags, and runs f with the plugin store
// and the working directory.
func withStore(ctx context.Context, o *Options, getenv func(string) string, f func(*plugin.Store, string) error) error {
	dir, err := workingDir(o.Dir)
	if err != nil {
		return err
	}
	h, err := openHost(ctx, o, getenv, false)
	if err != nil {
		return err
	}
	defer h.Close()
	store, err := h.Plugins()
	if err != nil {
		return err
	}
	return f(store, dir)
}

func newPluginInstallCmd(st Streams, getenv func(string) string, o *Options) *cobra.Command {
	var yes bool
	c := &cobra.Command{
		Use:   "install SOURCE",
		Short: "Install a plugin from a directory, a git repository (URL or path) or NAME@MARKETPLACE, after showing what it runs",
		Long: `Install a plugin: SOURCE is a directory (copied), a git repository (a URL, or the path of
a local one: cloned), or NAME@MARKETPLACE, a plugin of a marketplace added with
agent plugin marketplace add. agent shows the plugin's commands, agents, skills, hooks
and MCP servers, and installs it once you answer y (or with --yes): installing trusts
the plugin as a whole, whose hooks and servers run as you, outside the sandbox.
Installed plugins are enabled; agent plugin disable turns one off.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return withStore(c.Context(), o, getenv, func(store *plugin.Store, dir string) error {
				staged, err := store.Stage(c.Context(), args[0], dir)
				if err != nil {
					return usageError{Err: err}
				}
				defer staged.Discard()
				describeStaged(st.Out, staged)
				if !yes && !confirm(st, "Install it? [y/N] ") {
					return usagef("not installed: answer y, or pass --yes")
				}
				rec, err := staged.Commit()
				if err != nil {
					return err
				}
				fmt.Fprintf(st.Out, "installed %s; it is enabled (agent plugin disable %s turns it off)\n", rec.ID(), rec.ID())
				return nil
			})
		},
	}
	c.Flags().BoolVarP(&yes, "yes", "y", false, "install without asking")
	return c
}

// describeStaged shows what a staged plugin holds, for the person to
// decide.
func describeStaged(w io.Writer, s *plugin.Staged) {
	p := s.Plugin
	head := "plugin " + s.Record.ID()
	if s.Record.Version != "" {
		head += " " + s.Record.Version
	}
	if p.Description != "" {
		head += ": " + p.Description
	}
	fmt.Fprintln(w, head)
	from := "  from " + s.Record.Source
	if s.Record.Commit != "" {
		from += " (commit " + s.Record.Commit[:min(12, len(s.Record.Commit))] + ")"
	}
	fmt.Fprintln(w, from)
	for _, l := range s.Contents() {
		fmt.Fprintln(w, l)
	}
	for _, n := range s.Notes {
		fmt.Fprintln(w, "  left out: "+n)
	}
	for _, warning := range s.Warnings() {
		fmt.Fprintln(w, "  warning: "+warning)
	}
	if s.Replaces {
		fmt.Fprintln(w, "  it replaces the installed copy of "+s.Record.ID())
	}
}

// confirm asks question on st.Out and reads the answer's line from
// st.In: y or yes confirms; anything else, or no answer, declines.
func confirm(st Streams, question string) bool {
	fmt.Fprint(st.Out, question)
	line, _ := bufio.NewReader(st.In).ReadString('\n')
	answer := strings.ToLower(strings.TrimSpace(line))
	if line == "" || st.InPiped {
		fmt.Fprintln(st.Out) // what was typed ended the line; piped, nothing did
	}
	return answer == "y" || answer == "yes"
}

func newPluginListCmd(st Streams, getenv func(string) string, o *Options) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "list",
		Short: "List the installed plugins, whether each is enabled here, and what it contributes",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return withStore(c.Context(), o, getenv, func(store *plugin.Store, dir string) error {
				home, _ := os.UserHomeDir()
				l, err := store.List(dir, home)
				if err != nil {
					return err
				}
				if asJSON {
					return writeIndentedJSON(st.Out, pluginsJSON(l))
				}
				writePlugins(st.Out, l)
				return nil
			})
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, `print a JSON array of {"id", "version", "enabled", "enabled_by", "commands", "agents", "skills", "hooks", "mcp_servers", "warnings"}`)
	return c
}

// pluginJSON is one plugin of agent plugin list --json.
type pluginJSON struct {
	ID         string   `json:"id"`
	Version    string   `json:"version,omitempty"`
	Enabled    bool     `json:"enabled"`
	EnabledBy  string   `json:"enabled_by"`
	Commands   []string `json:"commands"`
	Agents     []string `json:"agents"`
	Skills     []string `json:"skills"`
	Hooks      []string `json:"hooks"`
	MCPServers []string `json:"mcp_servers"`
	Warnings   []string `json:"warnings"`
}

func pluginsJSON(l plugin.Listing) []pluginJSON {
	out := []pluginJSON{}
	for _, p := range l.Plugins {
		j := pluginJSON{ID: p.ID(), Version: p.Version, Enabled: p.Enabled, EnabledBy: p.EnabledBy, Commands: []string{}, Agents: []string{},
			Skills: []string{}, Hooks: []string{}, MCPServers: []string{}, Warnings: append([]string{}, p.Warnings...)}
		for _, c := range p.Commands {
			j.Commands = append(j.Commands, "/"+c.Name)
		}
		for _, a := range p.Agents {
			j.Agents = append(j.Agents, a.Name)
		}
		for _, s := range p.Skills {
			j.Skills = append(j.Skills, s.Name)
		}
		for _, h := range p.Hooks {
			j.Hooks = append(j.Hooks, h.Event+": "+h.Command)
		}
		j.MCPServers = append(j.MCPServers, slices.Sorted(maps.Keys(p.MCPServers))...)
		out = append(out, j)
	}
	return out
}

// writePlugins prints the installed plugins for people.
func writePlugins(w io.Writer, l plugin.Listing) {
	if len(l.Plugins) == 0 {
		fmt.Fprintln(w, "no plugins installed (agent plugin install DIR|GITURL|NAME@MARKETPLACE)")
	}
	for _, p := range l.Plugins {
		state := "disabled"
		if p.Enabled {
			state = "enabled"
		}
		head := p.ID()
		if p.Version != "" {
			head += " " + p.Version
		}
		fmt.Fprintf(w, "%s: %s (%s)\n", head, state, p.EnabledBy)
		for _, line := range p.Contents() {
			fmt.Fprintln(w, line)
		}
		for _, warning := range p.Warnings {
			fmt.Fprintln(w, "  warning: "+warning)
		}
	}
	for _, n := range l.Notes {
		fmt.Fprintln(w, n)
	}
}

func newPluginEnableCmd(st Streams, getenv func(string) string, o *Options, on bool) *cobra.Command {
	verb := map[bool]string{true: "enable", false: "disable"}[on]
	var scope string
	c := &cobra.Command{
		Use:   verb + " NAME[@MARKETPLACE]",
		Short: strings.ToUpper(verb[:1]) + verb[1:] + " an installed plugin: for you (the default), or in this project's .claude/settings.json (--scope project) or .claude/settings.local.json (--scope local)",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			sc, err := plugin.ParseScope(scope)
			if err != nil {
				return usageError{Err: err}
			}
			return withStore(c.Context(), o, getenv, func(store *plugin.Store, dir string) error {
				if sc == plugin.ScopeUser {
					rec, err := store.SetEnabled(args[0], on)
					if err != nil {
						return usageError{Err: err}
					}
					fmt.Fprintf(st.Out, "%sd %s for you (a project's enabledPlugins may still say otherwise)\n", verb, rec.ID())
					return nil
				}
				rec, err := store.Find(args[0])
				if err != nil {
					return usageError{Err: err}
				}
				path, err := plugin.SetEnabledIn(dir, sc, rec.ID(), on)
				if err != nil {
					return err
				}
				fmt.Fprintf(st.Out, "%sd %s in %s\n", verb, rec.ID(), path)
				return nil
			})
		},
	}
	c.Flags().StringVar(&scope, "scope", "user", "user, project (.claude/settings.json) or local (.claude/settings.local.json)")
	return c
}

func newPluginRemoveCmd(st Streams, getenv func(string) string, o *Options) *cobra.Command {
	return &cobra.Command{
		Use:     "remove NAME[@MARKETPLACE]",
		Aliases: []string{"uninstall"},
		Short:   "Uninstall a plugin: its copy in the data directory and its record",
		Args:    cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return withStore(c.Context(), o, getenv, func(store *plugin.Store, _ string) error {
				rec, err := store.Remove(args[0])
				if err != nil {
					return usageError{Err: err}
				}
				fmt.Fprintf(st.Out, "removed %s\n", rec.ID())
				return nil
			})
		},
	}
}

func newMarketplaceCmd(st Streams, getenv func(string) string, o *Options) *cobra.Command {
	c := &cobra.Command{Use: "marketplace", Short: "Plugin marketplaces: agent plugin marketplace add PATH|GITURL, list [NAME], remove NAME", Args: cobra.NoArgs}
	add := &cobra.Command{
		Use:   "add PATH|GITURL",
		Short: "Add a marketplace: a marketplace.json, a directory holding .claude-plugin/marketplace.json, or a git repository (cloned)",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return withStore(c.Context(), o, getenv, func(store *plugin.Store, dir string) error {
				rec, m, err := store.AddMarketplace(c.Context(), args[0], dir)
				if err != nil {
					return usageError{Err: err}
				}
				fmt.Fprintf(st.Out, "added marketplace %s (%d plugins) from %s; install one with agent plugin install NAME@%s\n", rec.Name, len(m.Plugins), rec.Source, rec.Name)
				return nil
			})
		},
	}
	list := &cobra.Command{
		Use:   "list [NAME]",
		Short: "List the added marketplaces, or the plugins of one",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return withStore(c.Context(), o, getenv, func(store *plugin.Store, _ string) error {
				if len(args) == 1 {
					return writeMarketplace(st.Out, store, args[0])
				}
				recs, err := store.Marketplaces()
				if err != nil {
					return err
				}
				if len(recs) == 0 {
					fmt.Fprintln(st.Out, "no marketplaces (agent plugin marketplace add PATH|GITURL)")
				}
				for _, r := range recs {
					fmt.Fprintf(st.Out, "%s: %s\n", r.Name, r.Source)
				}
				return nil
			})
		},
	}
	remove := &cobra.Command{
		Use:   "remove NAME",
		Short: "Forget a marketplace; the plugins installed from it stay installed",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return withStore(c.Context(), o, getenv, func(store *plugin.Store, _ string) error {
				kept, err := store.RemoveMarketplace(args[0])
				if err != nil {
					return usageError{Err: err}
				}
				fmt.Fprintf(st.Out, "removed marketplace %s\n", args[0])
				if len(kept) > 0 {
					fmt.Fprintf(st.Out, "still installed from it: %s (agent plugin remove NAME uninstalls one)\n", strings.Join(kept, ", "))
				}
				return nil
			})
		},
	}
	c.AddCommand(add, list, remove)
	return c
}

// writeMarketplace prints the plugins of the added marketplace name.
func writeMarketplace(w io.Writer, store *plugin.Store, name string) error {
	_, m, err := store.Marketplace(name)
	if err != nil {
		return usageError{Err: err}
	}
	for _, e := range m.Plugins {
		line := e.Name + "@" + m.Name
		if e.Version != "" {
			line += " " + e.Version
		}
		if e.Description != "" {
			line += ": " + e.Description
		}
		fmt.Fprintln(w, line)
	}
	return nil
}
