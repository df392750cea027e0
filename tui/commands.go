package tui

import (
	"fmt"
	"slices"
	"strings"
)

// slashCommand is one command typed at the prompt.
type slashCommand struct {
	name string // with the slash
	args string // argument hint, "" for none
	desc string
}

// slashCommands are the commands the prompt understands, in help order.
var slashCommands = []slashCommand{
	{"/help", "", "show keys and commands"},
	{"/new", "", "start a fresh conversation"},
	{"/sessions", "", "resume an earlier session"},
	{"/model", "[NAME]", "switch the model (without NAME: choose from the server's list)"},
	{"/init", "", "ask the model to write an AGENTS.md for this repository"},
	{"/tools", "", "list tools and which are picked"},
	{"/mcp", "[login NAME]", "show the MCP servers; login NAME authorizes one (OAuth)"},
	{"/hooks", "", "list the hooks and where each comes from"},
	{"/context", "", "show how the context window is used"},
	{"/compact", "[INSTRUCTIONS]", "summarise the older conversation to free the context window"},
	{"/cost", "", "show the session's tokens, cache use and cost"},
	{"/undo", "", "put back the files the last turn changed"},
	{"/memory", "", "edit MEMORY.md, what new sessions start with (# NOTE adds a line)"},
	{"/clear", "", "clear the screen, keep the conversation"},
	{"/quit", "", "quit"},
}

// CustomCommand is a custom slash command as completion and /help show
// it; sending it starts a turn with the typed text, which the turn runner
// expands.
type CustomCommand struct {
	// Name is the command without its slash ("review",
	// "frontend:component").
	Name         string
	ArgumentHint string
	Description  string
}

// withCustom returns the built-in commands followed by the custom ones
// (a custom command named like a built-in one is left out).
func withCustom(custom []CustomCommand) []slashCommand {
	out := slices.Clip(slashCommands)
	for _, c := range custom {
		name := "/" + c.Name
		if slices.ContainsFunc(slashCommands, func(b slashCommand) bool { return b.name == name }) {
			continue
		}
		out = append(out, slashCommand{name: name, args: c.ArgumentHint, desc: c.Description})
	}
	return out
}

// customCommands are the custom commands and those that come and go
// (Config.MoreCommands).
func (m *Model) customCommands() []CustomCommand {
	if m.cfg.MoreCommands == nil {
		return m.cfg.Commands
	}
	return append(slices.Clip(m.cfg.Commands), m.cfg.MoreCommands()...)
}

// completions returns the commands of cmds whose names start with the
// input's first word, when the input is a lone slash word.
func completions(cmds []slashCommand, input string) []slashCommand {
	if !strings.HasPrefix(input, "/") || strings.ContainsAny(input, " \n") {
		return nil
	}
	var out []slashCommand
	for _, c := range cmds {
		if strings.HasPrefix(c.name, input) {
			out = append(out, c)
		}
	}
	return out
}

// complete returns the input completed as far as the matching commands
// agree (with a trailing space once a single command matches), or the input
// unchanged.
func complete(cmds []slashCommand, input string) string {
	matches := completions(cmds, input)
	if len(matches) == 0 {
		return input
	}
	if len(matches) == 1 {
		if matches[0].args != "" {
			return matches[0].name + " "
		}
		return matches[0].name
	}
	prefix := matches[0].name
	for _, m := range matches[1:] {
		for !strings.HasPrefix(m.name, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	return prefix
}

// parseSlash splits "/model gpt-4.1" into the command and its argument. ok
// is false for input that is not a known command.
func parseSlash(input string) (cmd slashCommand, arg string, ok bool) {
	name, arg, _ := strings.Cut(strings.TrimSpace(input), " ")
	for _, c := range slashCommands {
		if c.name == name {
			return c, strings.TrimSpace(arg), true
		}
	}
	return slashCommand{}, "", false
}

// commandHelp is the text /help shows of cmds.
func commandHelp(cmds []slashCommand) string {
	var b strings.Builder
	b.WriteString("Commands:\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "  %-14s %s\n", strings.TrimSpace(c.name+" "+c.args), c.desc)
	}
	return strings.TrimRight(b.String(), "\n")
}

// initPrompt is the prompt /init sends: the model explores the repository
// and writes AGENTS.md with the editing tools, so the change is shown and
// approved as any other edit.
const initPrompt = "Write an AGENTS.md at the root of this repository, for coding agents that will work in it. " +
	"Explore first (list the files; read the README, the build and CI files and a few central sources), " +
	"then write the file: what the project is, its layout, the exact commands that build, test and lint it, " +
	"the conventions the code follows, and anything surprising. Keep it short and factual. " +
	"If an AGENTS.md exists, read it and improve it rather than starting over."
