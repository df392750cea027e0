package cmd

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/agent-dev/agent/tools/mcp"
	"github.com/agent-dev/agent/tools/mcp/oauth"
)

// newMCPLoginCmd builds `agent mcp login NAME`: it forgets the server's
// stored authorization, connects, and runs the authorization the server
// asks for (the browser opens; the URL is printed for a machine without
// one), waiting up to authTimeout for the person.
func newMCPLoginCmd(st Streams, getenv func(string) string, o *Options) *cobra.Command {
	c := &cobra.Command{
		Use:   "login NAME",
		Short: "Authorize agent with an HTTP MCP server (OAuth) and store its tokens",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return mcpLogin(c.Context(), st, getenv, o, args[0])
		},
	}
	mcpFlags(c, o)
	return c
}

// newMCPLogoutCmd builds `agent mcp logout NAME`, which removes the
// server's stored authorization.
func newMCPLogoutCmd(st Streams, getenv func(string) string, o *Options) *cobra.Command {
	c := &cobra.Command{
		Use:   "logout NAME",
		Short: "Forget an MCP server's stored OAuth tokens",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			h, err := openHost(c.Context(), o, getenv, false)
			if err != nil {
				return err
			}
			defer h.Close()
			store := h.OAuth()
			if store == nil {
				return usagef("no data directory: set --db PATH or XDG_DATA_HOME")
			}
			had, err := store.Remove(args[0])
			if err != nil {
				return err
			}
			if had {
				fmt.Fprintf(st.Out, "Removed the stored authorization of MCP server %s.\n", args[0])
			} else {
				fmt.Fprintf(st.Out, "MCP server %s has no stored authorization.\n", args[0])
			}
			return nil
		},
	}
	mcpFlags(c, o)
	return c
}

// mcpFlags are the flags that say where the servers are configured.
func mcpFlags(c *cobra.Command, o *Options) {
	f := c.Flags()
	f.StringVar(&o.ConfigPath, "config", "", "config file (default $XDG_CONFIG_HOME/agent/config.toml)")
	f.StringVar(&o.DB, "db", "", "session database; the tokens are kept beside it (default $XDG_DATA_HOME/agent/sessions.db)")
	f.BoolVar(&o.TrustProjectMCP, "trust-project-mcp", false, "allow a server of the project's .mcp.json")
	f.StringVarP(&o.Dir, "cwd", "C", "", "working directory (default the current directory)")
}

func mcpLogin(ctx context.Context, st Streams, getenv func(string) string, o *Options, name string) error {
	dir, err := workingDir(o.Dir)
	if err != nil {
		return err
	}
	h, err := openHost(ctx, o, getenv, false)
	if err != nil {
		return err
	}
	defer h.Close()
	status, stored, err := h.MCPLogin(ctx, dir, name, o.TrustProjectMCP, func(msg string) { fmt.Fprintln(st.Err, msg) })
	if err != nil {
		return err
	}
	return reportLogin(st.Out, status, stored, h.OAuth())
}

// reportLogin says how the login went: an error when the server did not
// start, else whether tokens were stored.
func reportLogin(w io.Writer, s mcp.Status, stored bool, store *oauth.Store) error {
	if s.State != mcp.StateRunning {
		return fmt.Errorf("logging in to MCP server %s: %s", s.Name, s.Error)
	}
	if stored {
		fmt.Fprintf(w, "Logged in to MCP server %s (%d tools); its tokens are stored in %s.\n", s.Name, len(s.Tools), store.Dir)
	} else {
		fmt.Fprintf(w, "MCP server %s runs (%d tools) without a stored authorization: it asked for none, or uses client credentials.\n", s.Name, len(s.Tools))
	}
	return nil
}
