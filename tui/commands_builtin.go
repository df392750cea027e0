package tui

import (
	"context"
	"strings"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"

	"github.com/agent-dev/agent/conversation"
)

// The run functions of the built-in commands (builtinCommands). A command
// that answers with a note scrolls the pane to it; one that refuses (a
// turn runs, the run keeps no sessions) leaves the pane where it is.

// showNote shows text as a note at the bottom of the pane: a command's
// answer.
func (m *Model) showNote(text string) tea.Cmd {
	m.chat.append(newNoteItem(m.st, text))
	m.chat.bottom()
	return nil
}

// helpCommand is /help: every key (as ? shows them, laid out for the
// pane's width) and the command table, in a note that scrolls, so that a
// terminal too short for ?'s panel shows them all too.
func (m *Model) helpCommand() tea.Cmd {
	keys := fullHelpLines(help.Styles{}, m.keys.FullHelp(), max(m.width-4, 20))
	return m.showNote("Keys:\n  " + strings.Join(keys, "\n  ") + "\n\n" + commandHelp(m.commands()))
}

// newCommand is /new: a new session in the store, or, without one, a new
// conversation with the same system prompt.
func (m *Model) newCommand() tea.Cmd {
	if m.running {
		m.chat.append(newNoteItem(m.st, "Cancel the running turn (Esc) before starting a new conversation."))
		return nil
	}
	if sessions := m.cfg.Sessions; sessions != nil {
		return func() tea.Msg {
			sess, err := sessions.New(context.Background())
			return sessionOpenedMsg{sess, err}
		}
	}
	conv := conversation.New(m.session.Conv.System(), nil)
	m.switchSession(&Session{ID: m.session.ID, Conv: conv, NewLoop: m.session.NewLoop})
	m.chat.bottom()
	return nil
}

// modelCommand is /model [NAME]: switch to NAME, or choose from the
// server's list.
func (m *Model) modelCommand(arg string) tea.Cmd {
	switch {
	case arg != "":
		return m.switchModel(arg)
	case m.cfg.Models == nil:
		m.chat.append(newNoteItem(m.st, "Model: "+m.cfg.Model+". Switch with /model NAME."))
		return nil
	case m.running:
		m.chat.append(newNoteItem(m.st, "Cancel the running turn (Esc) before switching models."))
		return nil
	}
	return m.openModelPicker()
}

// initPrompt is the prompt /init sends: the model explores the repository
// and writes AGENTS.md with the editing tools, so the change is shown and
// approved as any other edit.
const initPrompt = "Write an AGENTS.md at the root of this repository, for coding agents that will work in it. " +
	"Explore first (list the files; read the README, the build and CI files and a few central sources), " +
	"then write the file: what the project is, its layout, the exact commands that build, test and lint it, " +
	"the conventions the code follows, and anything surprising. Keep it short and factual. " +
	"If an AGENTS.md exists, read it and improve it rather than starting over."

// initCommand is /init: initPrompt, a prompt like any other (queued while
// a turn runs).
func (m *Model) initCommand() tea.Cmd { return m.submit(initPrompt) }

// toolsCommand is /tools.
func (m *Model) toolsCommand() tea.Cmd { return m.showNote(m.toolsNote()) }

// mcpCommand is /mcp: the servers' states, or with "login NAME" a login to
// one (when the front-end can).
func (m *Model) mcpCommand(arg string) tea.Cmd {
	if name, ok := strings.CutPrefix(strings.TrimSpace(arg), "login"); ok && m.cfg.MCPLogin != nil {
		return m.mcpLogin(strings.TrimSpace(name))
	}
	note := "No MCP servers configured: add [mcp.servers.NAME] to the config file, or a .mcp.json to the project."
	if m.cfg.MCP != nil {
		note = m.cfg.MCP()
	}
	return m.showNote(note)
}

// mcpLogin starts /mcp login NAME: a note now, the login in a command, and
// its outcome as another note.
func (m *Model) mcpLogin(name string) tea.Cmd {
	if name == "" {
		m.chat.append(newErrorItem(m.st, "Say which server: /mcp login NAME."))
		return nil
	}
	m.chat.append(newNoteItem(m.st, "Logging in to MCP server "+name+": the browser opens, and its URL is shown."))
	m.chat.bottom()
	login := m.cfg.MCPLogin
	return func() tea.Msg { return mcpLoginMsg{login(name)} }
}

// hooksCommand is /hooks: what the front-end lists.
func (m *Model) hooksCommand() tea.Cmd {
	note := "No hooks: add [[hooks.EVENT]] to the config file, or hooks to .claude/settings.json."
	if m.cfg.Hooks != nil {
		note = m.cfg.Hooks()
	}
	return m.showNote(note)
}

// worktreesCommand is /worktrees: the front-end's list, read outside
// Update (it runs git).
func (m *Model) worktreesCommand() tea.Cmd {
	if m.cfg.Worktrees == nil {
		return m.showNote("No worktrees: agent --worktree NAME works in one, and subagents with isolation: worktree do.")
	}
	list := m.cfg.Worktrees
	return func() tea.Msg { return worktreesMsg{list(context.Background())} }
}

// contextCommand is /context.
func (m *Model) contextCommand() tea.Cmd {
	return m.showNote(contextNote(m.loop.Context(m.session.Conv)))
}

// costCommand is /cost.
func (m *Model) costCommand() tea.Cmd { return m.showNote(m.cost.report()) }

// undoCommand is /undo: the files go back to before the last prompt that
// changed them (Rewinder.Undo, in a command).
func (m *Model) undoCommand() tea.Cmd {
	if m.cfg.Rewind == nil {
		m.chat.append(newNoteItem(m.st, "Sessions are not saved in this run, so there is nothing to undo."))
		return nil
	}
	if m.running {
		m.chat.append(newNoteItem(m.st, "Cancel the running turn (Esc) before undoing."))
		return nil
	}
	rw, id := m.cfg.Rewind, m.session.ID
	return func() tea.Msg {
		res, journal, err := rw.Undo(context.Background(), id)
		return undoneMsg{res: res, journal: journal, err: err}
	}
}

// clearCommand is /clear: the pane empties, the conversation stays, and a
// question still waiting shows again.
func (m *Model) clearCommand() tea.Cmd {
	m.chat.clear()
	m.forgetItems()
	m.showWaitingQuestion()
	m.chat.bottom()
	return nil
}

// quitCommand is /quit: the running turn is cancelled first.
func (m *Model) quitCommand() tea.Cmd {
	m.cancelTurn()
	return tea.Quit
}
