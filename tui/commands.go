package tui

import (
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// slashCommand is one entry of the prompt's command table: what completion
// and /help show of it (its name, argument hint and description) and what
// it does. Dispatch, /help's text and completion all come from the table
// (Model.commands), so a new built-in command is one entry of
// builtinCommands.
type slashCommand struct {
	name string // with the slash
	args string // argument hint, "" for none
	desc string
	// run does the command, in Update: arg is what follows the name,
	// trimmed; text is the input as typed. It changes the model only and
	// returns what is to happen outside it (I/O, a turn) as a command, or
	// nil.
	run func(m *Model, arg, text string) tea.Cmd
}

// builtinCommands are the interface's own commands, in /help's order.
func builtinCommands() []slashCommand {
	return []slashCommand{
		{"/help", "", "show keys and commands", noArg((*Model).helpCommand)},
		{"/new", "", "start a fresh conversation", noArg((*Model).newCommand)},
		{"/sessions", "", "resume an earlier session", noArg((*Model).openPicker)},
		{"/model", "[NAME]", "switch the model (without NAME: choose from the server's list)", withArg((*Model).modelCommand)},
		{"/init", "", "ask the model to write an AGENTS.md for this repository", noArg((*Model).initCommand)},
		{"/tools", "", "list tools and which are picked", noArg((*Model).toolsCommand)},
		{"/mcp", "[login NAME]", "show the MCP servers; login NAME authorizes one (OAuth)", withArg((*Model).mcpCommand)},
		{"/lsp", "", "show the language servers: state, files, errors and warnings", noArg((*Model).lspCommand)},
		{"/hooks", "", "list the hooks and where each comes from", noArg((*Model).hooksCommand)},
		{"/shells", "[ID | stop ID]", "background shells: list them, show one's output, stop one", withArg((*Model).shellsCommand)},
		{"/worktrees", "", "list the git worktrees agent made for this repository", noArg((*Model).worktreesCommand)},
		{"/theme", "[NAME]", "switch the colours: a theme by name (without NAME: list the themes)", withArg((*Model).themeCommand)},
		{"/context", "", "show how the context window is used", noArg((*Model).contextCommand)},
		{"/compact", "[INSTRUCTIONS]", "summarise the older conversation to free the context window", withArg((*Model).startCompact)},
		{"/cost", "", "show the session's tokens, cache use and cost", noArg((*Model).costCommand)},
		{"/rewind", "", "rewind the code or the conversation to before a prompt (Esc Esc)", noArg((*Model).openRewind)},
		{"/undo", "", "undo the last prompt's changes to the files", noArg((*Model).undoCommand)},
		{"/memory", "", "edit MEMORY.md, what new sessions start with (# NOTE adds a line)", noArg((*Model).editMemory)},
		{"/clear", "", "clear the screen, keep the conversation", noArg((*Model).clearCommand)},
		{"/vim", "[on|off]", "switch vim keys in the input (Esc: normal mode; i: insert mode)", withArg((*Model).vimCommand)},
		{"/quit", "", "quit", noArg((*Model).quitCommand)},
		{"/exit", "", "quit (as /quit)", noArg((*Model).quitCommand)},
	}
}

// noArg makes a command that takes no argument (one typed is ignored) a
// run function.
func noArg(f func(*Model) tea.Cmd) func(*Model, string, string) tea.Cmd {
	return func(m *Model, _, _ string) tea.Cmd { return f(m) }
}

// withArg makes a command that takes the trimmed argument a run function.
func withArg(f func(*Model, string) tea.Cmd) func(*Model, string, string) tea.Cmd {
	return func(m *Model, arg, _ string) tea.Cmd { return f(m, arg) }
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

// commands is the prompt's command table: the built-in commands, then the
// custom ones (Config.Commands, then what Config.MoreCommands lists now:
// skills, MCP prompts), whose run sends the text as typed as a prompt. A
// custom command named like a built-in one is left out.
func (m *Model) commands() []slashCommand {
	out := builtinCommands()
	builtins := len(out)
	for _, c := range m.customCommands() {
		name := "/" + c.Name
		if slices.ContainsFunc(out[:builtins], func(b slashCommand) bool { return b.name == name }) {
			continue
		}
		out = append(out, slashCommand{name: name, args: c.ArgumentHint, desc: c.Description, run: sendAsPrompt})
	}
	return out
}

// sendAsPrompt is a custom command's run: the text as typed is a prompt
// like any other (queued while a turn runs), which the turn runner expands.
func sendAsPrompt(m *Model, _, text string) tea.Cmd { return m.sendOrQueue(text) }

// customCommands are the custom commands and those that come and go
// (Config.MoreCommands).
func (m *Model) customCommands() []CustomCommand {
	if m.cfg.MoreCommands == nil {
		return m.cfg.Commands
	}
	return append(slices.Clip(m.cfg.Commands), m.cfg.MoreCommands()...)
}

// lookup returns the command of cmds that input names, and the trimmed
// argument after its name. ok is false for input that names none.
func lookup(cmds []slashCommand, input string) (cmd slashCommand, arg string, ok bool) {
	name, arg, _ := strings.Cut(strings.TrimSpace(input), " ")
	for _, c := range cmds {
		if c.name == name {
			return c, strings.TrimSpace(arg), true
		}
	}
	return slashCommand{}, "", false
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

// commandHelp is the text /help shows of cmds.
func commandHelp(cmds []slashCommand) string {
	var b strings.Builder
	b.WriteString("Commands:\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "  %-14s %s\n", strings.TrimSpace(c.name+" "+c.args), c.desc)
	}
	return strings.TrimRight(b.String(), "\n")
}
