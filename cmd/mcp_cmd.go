package cmd

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/agent-dev/agent/tools/mcp"
	"github.com/agent-dev/agent/tools/shell"
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

// mcpConfigs are the MCP servers of the config file and of dir's
// .mcp.json (the config's win), and the names of the project's. It needs
// no model or key.
func mcpConfigs(o *Options, dir string, getenv func(string) string) ([]mcp.Config, map[string]projectServer, error) {
	path, explicit := o.ConfigPath, o.ConfigPath != ""
	if !explicit {
		path = defaultConfigPath(getenv)
	}
	fc, err := loadFileConfig(path, explicit)
	if err != nil {
		return nil, nil, err
	}
	keyEnvs := []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"}
	if s, err := resolveSettings(o, getenv); err == nil {
		keyEnvs = s.ProviderKeyEnvs
	}
	return resolveMCP(fc.MCP.Servers, dir, keyEnvs, getenv)
}

// mcpStatus starts the servers, waits for each (up to its startup
// timeout), and returns their states. Project servers start when
// --trust-project-mcp is given or the person allowed them before.
func mcpStatus(ctx context.Context, o *Options, dir string, getenv func(string) string) ([]mcp.Status, error) {
	cfgs, project, err := mcpConfigs(o, dir, getenv)
	if err != nil {
		return nil, err
	}
	var trust *trustStore
	if db, err := dbPath(o, getenv); err == nil {
		trust = &trustStore{path: filepath.Join(filepath.Dir(db), trustFile)}
	}
	gateProject(cfgs, project, trust, dir, o.TrustProjectMCP)
	attachOAuth(cfgs, oauthStore(o, getenv), nil, shell.EnvFilter{Strip: providerKeyEnvs(o, getenv)}, false)
	m := mcp.NewManager(cfgs, mcp.Options{Version: versionString(), Roots: []string{dir}})
	m.Start(ctx)
	m.Wait(ctx)
	defer m.Close()
	return m.Status(), nil
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
