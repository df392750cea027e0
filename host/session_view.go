package host

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/agent-dev/agent/lsp"
	"github.com/agent-dev/agent/tools/background"

	"github.com/agent-dev/agent/mention"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/mcp"
	"github.com/agent-dev/agent/tools/shell/sandbox"
)

// This file is what a front-end shows of a session: its tools, commands,
// MCP servers, memory, hooks and warnings.

// ToolNames are the names of every tool the session offers now (MCP
// servers' included), sorted.
func (s *Session) ToolNames() []string { return s.a.catalog.Current().Names() }

// Tools are the names of every tool and of those offered in full given
// the conversation's picks.
func (s *Session) Tools(picked []string) (all, full []string) {
	c := s.a.catalog.Current()
	return c.Names(), c.Full(picked)
}

// Definition is the definition of the tool name; ok false for a tool that
// is gone.
func (s *Session) Definition(name string) (tools.Definition, bool) {
	return s.a.catalog.Current().Definition(name)
}

// Describe is how a call of tool name with args is shown: its summary and
// kind (a tool that is gone: the arguments as they are, KindOther).
func (s *Session) Describe(name, args string) (tools.Summary, tools.Kind) {
	def, ok := s.Definition(name)
	if !ok {
		return tools.DefaultSummary(args), tools.KindOther
	}
	return def.Summary(args), def.KindOrOther()
}

// Commands are the session's custom slash commands and its MCP servers'
// prompts, which its prompts expand; the servers' come and go.
func (s *Session) Commands() []Command { return append(s.CustomCommands(), s.MCPCommands()...) }

// CustomCommands are the custom slash commands alone (their number is
// fixed for the session).
func (s *Session) CustomCommands() []Command {
	var out []Command
	for _, c := range s.a.ext.commands {
		d := c.Description
		if c.Skill {
			d += " (skill)"
		}
		out = append(out, Command{Name: c.Name, Hint: c.ArgumentHint, Description: d})
	}
	return out
}

// Agents are the names of the agent definitions the task tool may run,
// in the order they were found.
func (s *Session) Agents() []string {
	var out []string
	for _, a := range s.a.agents {
		out = append(out, a.Name)
	}
	return out
}

// Skills are the names of the session's skills.
func (s *Session) Skills() []string {
	var out []string
	for _, sk := range s.a.ext.skills {
		out = append(out, sk.Name)
	}
	return out
}

// MCPCommands are the MCP servers' prompts as commands, as they are now.
func (s *Session) MCPCommands() []Command { return s.a.mcpCommands() }

// StartMCP starts the MCP servers of a session opened with
// FrontEnd.MCP.Later; their tools join the catalog as each is ready.
// Cancelling ctx stops what waits on a person (a trust question).
func (s *Session) StartMCP(ctx context.Context) { s.a.mcp.Start(ctx) }

// OnMCPChange has fn called, from any goroutine, after the session's MCP
// servers changed what they offer (one started, stopped or listed anew):
// their tools, prompts or resources may differ.
func (s *Session) OnMCPChange(fn func()) {
	s.a.mcpWatchMu.Lock()
	defer s.a.mcpWatchMu.Unlock()
	s.a.mcpWatch = append(s.a.mcpWatch, fn)
}

// MCPServers are the names of the session's MCP servers, configured and
// added by the front-end, sorted as configured.
func (s *Session) MCPServers() []string {
	var out []string
	for _, c := range s.a.mcpCfgs {
		out = append(out, c.Name)
	}
	return out
}

// MCPStatus is each MCP server's state and tools.
func (s *Session) MCPStatus() []mcp.Status { return s.a.mcp.Status() }

// MCPLogin authorizes the configured server name now (the browser opens)
// and returns what became of it, one line; it blocks.
func (s *Session) MCPLogin(name string) string { return s.a.mcpLogin(name) }

// Mentions completes @path words and attaches what a prompt mentions.
func (s *Session) Mentions() *mention.Mentions { return s.a.mentions }

// Root is the session's working directory, opened as a root.
func (s *Session) Root() *os.Root { return s.a.root }

// Remember saves a "#" note to the project's MEMORY.md and returns the
// file's path.
func (s *Session) Remember(note string) (string, error) { return s.a.memory.Remember(note, true) }

// MemoryFile returns MEMORY.md's path, creating it when missing.
func (s *Session) MemoryFile() (string, error) { return s.a.memory.EnsureLongTerm() }

// HookListing lists every hook, one line each, with its source and, for a
// repository's, whether it is trusted (/hooks).
func (s *Session) HookListing() string { return hookListing(s.a, s.h.trust) }

// StatusWarning is what the interface's status line warns of, most
// important first: a fork of a session in use, a changed AGENTS.md, yolo,
// no sandbox where one was asked for.
func (s *Session) StatusWarning() string {
	var parts []string
	for _, n := range s.notices {
		if !s.a.serviceNotice(n) {
			parts = append(parts, n) // a fork of a session in use
		}
	}
	for _, svc := range s.a.services {
		if svc.status != "" {
			parts = append(parts, svc.status)
		}
	}
	st := s.a.sandbox.Brief()
	switch {
	case s.a.plan.get() == ModeYolo:
		parts = append(parts, "YOLO: no sandbox, commands run without asking")
	case !st.Enforced && st.Mode != sandbox.Off:
		parts = append(parts, "no sandbox here: every command needs approval (agent doctor says why)")
	}
	return strings.Join(parts, " · ")
}

// maxDiffFile bounds the files whose text ReadText returns (1 MiB).
const maxDiffFile = 1 << 20

// ReadText reads rel (relative, or absolute inside the session's
// directory) as the file tools see it: through FrontEnd.Files when they
// take it (an editor's buffer), else through the session's root. Its
// text; ok false for a path outside, a file that cannot be read, over 1
// MiB or not UTF-8.
func (s *Session) ReadText(rel string) (string, bool) {
	if filepath.IsAbs(rel) {
		r, err := filepath.Rel(s.a.dir, rel)
		if err != nil || !filepath.IsLocal(r) {
			return "", false
		}
		rel = r
	}
	if !filepath.IsLocal(rel) {
		return "", false
	}
	if s.a.buffers != nil {
		if data, ok, err := s.a.buffers.ReadFile(context.Background(), filepath.ToSlash(rel)); ok {
			return string(data), err == nil && len(data) <= maxDiffFile && utf8.Valid(data)
		}
	}
	f, err := s.a.root.Open(rel)
	if err != nil {
		return "", false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxDiffFile+1))
	if err != nil || len(data) > maxDiffFile || !utf8.Valid(data) {
		return "", false
	}
	return string(data), true
}

// serviceNotice reports whether notice is a service's.
func (a *agent) serviceNotice(notice string) bool {
	for _, svc := range a.services {
		if svc.notice == notice {
			return true
		}
	}
	return false
}

// Background is the session's background processes (bash's
// run_in_background): what front-ends list, read, stop, and Ctrl+B's
// SendToBackground; nil when the session has none.
func (s *Session) Background() *background.Manager { return s.a.background }

// LanguageServers are the session's language servers with their state
// (package lsp), for /lsp; nil when none is configured or found.
func (s *Session) LanguageServers() []lsp.State {
	if s.a.lsp == nil {
		return nil
	}
	return s.a.lsp.States()
}

// Diagnostics counts the errors and warnings the session's running
// language servers report now (for a status line); zero without servers.
func (s *Session) Diagnostics() (errors, warnings int) {
	if s.a.lsp == nil {
		return 0, 0
	}
	return s.a.lsp.Counts()
}
