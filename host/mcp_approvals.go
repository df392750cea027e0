package host

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/agent-dev/agent/claudesettings"
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
}

// loadMCPApprovals reads the approvals of the servers of dir's .mcp.json
// from ~/.claude/settings.json and dir's .claude/settings.json and
// .claude/settings.local.json (package claudesettings, which names a file
// it cannot read among the session's warnings).
func loadMCPApprovals(dir string) mcpApprovals {
	ap := mcpApprovals{enabled: map[string]string{}, disabled: map[string]string{}}
	home, _ := os.UserHomeDir()
	files, _ := claudesettings.Load(home, dir)
	for _, f := range files {
		for _, n := range f.DisabledMcpjsonServers {
			if _, ok := ap.disabled[n]; !ok {
				ap.disabled[n] = f.Path
			}
		}
		all := f.EnableAllProjectMcpServers != nil && *f.EnableAllProjectMcpServers
		switch {
		case f.Project && (all || len(f.EnabledMcpjsonServers) > 0):
			what := "enabledMcpjsonServers " + strings.Join(f.EnabledMcpjsonServers, ", ")
			if all {
				what = "enableAllProjectMcpServers"
			}
			ap.repoApproves = append(ap.repoApproves, f.Path+" ("+what+")")
		case !f.Project:
			if all {
				ap.all = f.Path
			}
			for _, n := range f.EnabledMcpjsonServers {
				ap.enabled[n] = f.Path
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
