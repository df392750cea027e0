package cmd

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agent-dev/agent/tools/mcp"
)

// newMCPCmd builds `agent mcp`: list the MCP servers, log in to one
// (OAuth) or out of it.
func newMCPCmd(st Streams, getenv func(string) string, o *Options) *cobra.Command {
	c := &cobra.Command{Use: "mcp", Short: "MCP servers: agent mcp list, login NAME, logout NAME", Args: cobra.NoArgs}
	var asJSON bool
	list := &cobra.Command{
		Use:   "list",
		Short: "Start the configured MCP servers and list each one's state and tools",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			dir, err := workingDir(o.Dir)
			if err != nil {
				return err
			}
			statuses, err := mcpStatus(c.Context(), o, dir, getenv)
			if err != nil {
				return err
			}
			if asJSON {
				return writeIndentedJSON(st.Out, statuses)
			}
			writeMCPStatus(st.Out, statuses)
			return nil
		},
	}
	f := list.Flags()
	f.BoolVar(&asJSON, "json", false, `print a JSON array of {"name", "state", "error", "tools"}`)
	f.StringVar(&o.ConfigPath, "config", "", "config file (default $XDG_CONFIG_HOME/agent/config.toml)")
	f.BoolVar(&o.TrustProjectMCP, "trust-project-mcp", false, "start the servers of the project's .mcp.json too")
	f.StringVarP(&o.Dir, "cwd", "C", "", "working directory (default the current directory)")
	c.AddCommand(list, newMCPLoginCmd(st, getenv, o), newMCPLogoutCmd(st, getenv, o))
	return c
}

// mcpStatus starts the servers of dir, waits for each (up to its startup
// timeout), and returns their states. Project servers start when
// --trust-project-mcp is given or the person allowed them before.
func mcpStatus(ctx context.Context, o *Options, dir string, getenv func(string) string) ([]mcp.Status, error) {
	h, err := openHost(ctx, o, getenv, false)
	if err != nil {
		return nil, err
	}
	defer h.Close()
	return h.MCPStatus(ctx, dir, o.TrustProjectMCP)
}

// writeMCPStatus prints the servers for people.
func writeMCPStatus(w io.Writer, statuses []mcp.Status) {
	if len(statuses) == 0 {
		fmt.Fprintln(w, "no MCP servers configured ([mcp.servers.NAME] in the config file, or the project's .mcp.json)")
		return
	}
	for _, s := range statuses {
		line := fmt.Sprintf("%s: %s", s.Name, s.State)
		if s.Error != "" {
			line += ": " + s.Error
		}
		if s.State == mcp.StateRunning {
			line += fmt.Sprintf(", %d tools", len(s.Tools))
			if more := mcpSummary(s); more != "" {
				line += "; " + more
			}
		}
		fmt.Fprintln(w, line)
		for _, t := range s.Tools {
			fmt.Fprintln(w, "  "+t)
		}
	}
}

// mcpSummary is one line of counts of a running server's prompts and
// resources ("" for none).
func mcpSummary(s mcp.Status) string {
	var parts []string
	if n := len(s.Prompts); n > 0 {
		sorted := append([]string(nil), s.Prompts...)
		sort.Strings(sorted)
		parts = append(parts, fmt.Sprintf("prompts: /%s", strings.Join(sorted, ", /")))
	}
	if s.Resources > 0 {
		parts = append(parts, fmt.Sprintf("%d resources (@%s:URI)", s.Resources, s.Name))
	}
	return strings.Join(parts, "; ")
}
