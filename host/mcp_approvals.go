package host

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-dev/agent/tools/mcp"
)

// mcpApprovals are the approvals of a project's .mcp.json servers in
// Claude Code's settings files ("Settings": enableAllProjectMcpServers,
// enabledMcpjsonServers, disabledMcpjsonServers). The person's own
// ~/.claude/settings.json may approve and refuse; a repository's
// .claude/settings.json and .claude/settings.local.json may only refuse:
// a repository never approves the servers it defines itself (they run its
// code), so its approvals are named in a warning and agent's trust decides.
type mcpApprovals struct {
	// all and enabled approve (the user's file); disabled refuse, from
	// any file, by server name, each with the file that says so.
	all      string
	enabled  map[string]string
	disabled map[string]string
	// repoApproves are the repository's files that would approve its
	// own servers, with what they say.
	repoApproves []string
	// problems are files that could not be read.
	problems []string
}

// claudeMCPSettings is the part of a Claude Code settings file about
// project MCP servers.
type claudeMCPSettings struct {
	EnableAll *bool    `json:"enableAllProjectMcpServers"`
	Enabled   []string `json:"enabledMcpjsonServers"`
	Disabled  []string `json:"disabledMcpjsonServers"`
}

// loadMCPApprovals reads the approvals of the servers of dir's .mcp.json
// from ~/.claude/settings.json and dir's .claude/settings.json and
// .claude/settings.local.json.
func loadMCPApprovals(dir string) mcpApprovals {
	ap := mcpApprovals{enabled: map[string]string{}, disabled: map[string]string{}}
	var files []struct {
		path string
		repo bool
	}
	if home, err := os.UserHomeDir(); err == nil {
		files = append(files, struct {
			path string
			repo bool
		}{filepath.Join(home, ".claude", "settings.json"), false})
	}
	for _, name := range []string{"settings.json", "settings.local.json"} {
		files = append(files, struct {
			path string
			repo bool
		}{filepath.Join(dir, ".claude", name), true})
	}
	for _, f := range files {
		data, err := os.ReadFile(f.path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		var s claudeMCPSettings
		if err == nil {
			err = json.Unmarshal(data, &s)
		}
		if err != nil {
			ap.problems = append(ap.problems, fmt.Sprintf("%s: %v (its MCP server approvals are not read)", f.path, err))
			continue
		}
		for _, n := range s.Disabled {
			if _, ok := ap.disabled[n]; !ok {
				ap.disabled[n] = f.path
			}
		}
		all := s.EnableAll != nil && *s.EnableAll
		switch {
		case f.repo && (all || len(s.Enabled) > 0):
			what := "enabledMcpjsonServers " + strings.Join(s.Enabled, ", ")
			if all {
				what = "enableAllProjectMcpServers"
			}
			ap.repoApproves = append(ap.repoApproves, f.path+" ("+what+")")
		case !f.repo:
			if all {
				ap.all = f.path
			}
			for _, n := range s.Enabled {
				ap.enabled[n] = f.path
			}
		}
	}
	return ap
}

// apply decides the project servers of cfgs (project names them) by the
// approvals: a server a disabledMcpjsonServers names is skipped; one the
// person's settings approve is returned in approved, to start without
// asking. lines say what was decided that the person should know: the
// repository's approvals that agent did not take, files it could not
// read.
func (ap mcpApprovals) apply(cfgs []mcp.Config, project map[string]projectServer) (approved map[string]bool, lines []string) {
	approved = map[string]bool{}
	lines = append(lines, ap.problems...)
	untaken := false
	for i := range cfgs {
		name := cfgs[i].Name
		if _, ok := project[name]; !ok || cfgs[i].Skipped != "" || cfgs[i].Disabled {
			continue
		}
		switch {
		case ap.disabled[name] != "":
			cfgs[i].Skipped = "disabledMcpjsonServers in " + ap.disabled[name] + " names it"
		case ap.enabled[name] != "" || ap.all != "":
			approved[name] = true
		default:
			untaken = true
		}
	}
	if untaken && len(ap.repoApproves) > 0 {
		slices.Sort(ap.repoApproves)
		lines = append(lines, fmt.Sprintf("the repository's own settings approve its MCP servers in %s: agent does not take a repository's word for its own servers (you are asked, or --trust-project-mcp; ~/.claude/settings.json may approve them)",
			strings.Join(ap.repoApproves, "; ")))
	}
	return approved, lines
}
