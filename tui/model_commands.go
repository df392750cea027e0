package tui

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/agent-dev/agent/conversation"
	"github.com/agent-dev/agent/mention"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sessions"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/turn"
)

// sessionLabel is what the status line calls a session: its title, else
// its id.
func sessionLabel(s *Session) string {
	if s.Title != "" {
		return s.Title
	}
	return s.ID
}

// showHistory puts an earlier conversation in the pane: prompts, answers as
// markdown, a finished tool block per call with its result, and the summary
// of a compaction as a note.
func (m *Model) showHistory(msgs []providers.Message) {
	for _, msg := range msgs {
		switch msg.Role {
		case providers.RoleUser:
			if summary, ok := strings.CutPrefix(msg.Text(), conversation.SummaryPrefix); ok {
				m.chat.append(newNoteItem(m.st, "Earlier conversation, compacted. Its summary:\n"+summary))
				break
			}
			prompt, attached := mention.Strip(msg.Text())
			m.chat.append(newUserItem(m.st, prompt))
			if len(attached) > 0 {
				m.chat.append(newNoteItem(m.st, "Attached "+strings.Join(attached, ", ")+"."))
			}
			m.prompts = append(m.prompts, prompt)
		case providers.RoleAssistant:
			for _, p := range msg.Parts {
				switch p := p.(type) {
				case providers.Reasoning:
					m.assistant().appendReasoning(p.Text)
				case providers.Text:
					m.assistant().appendText(p.Text)
				case providers.ToolCall:
					if def, ok := m.definition(p.Name); !def.ChangesToolset {
						b := m.block(p.ID, p.Name, def.Summary(p.Arguments))
						b.commands = ok && def.Effects.Has(tools.RunsCommands)
					}
				case providers.WebSearch:
					m.noteAfterText(searchNote(p.Query, p.Sources, p.Error))
				}
			}
			if note := sourcesNote(msg.Citations()); note != "" {
				m.noteAfterText(note)
			}
		case providers.RoleTool:
			for _, p := range msg.Parts {
				if r, ok := p.(providers.ToolResult); ok {
					if b, ok := m.blocks[r.CallID]; ok {
						b.finish(r.Content, r.IsError, 0, nil)
					}
				}
			}
		}
		if msg.Role != providers.RoleAssistant && m.current != nil {
			m.current.finish()
			m.current = nil
		}
	}
	if m.current != nil {
		m.current.finish()
		m.current = nil
	}
	m.recall = len(m.prompts)
	if len(msgs) > 0 {
		m.chat.append(newNoteItem(m.st, "Resumed: the conversation above is sent with your next prompt."))
	}
}

// openPicker opens the session picker and asks for the list.
func (m *Model) openPicker() tea.Cmd {
	if m.cfg.Sessions == nil {
		m.chat.append(newNoteItem(m.st, "Sessions are not saved in this run."))
		return nil
	}
	if m.running {
		m.chat.append(newNoteItem(m.st, "Cancel the running turn (Esc) before switching sessions."))
		return nil
	}
	m.picker = &sessionPicker{st: m.st}
	sessions := m.cfg.Sessions
	return func() tea.Msg {
		items, err := sessions.List(context.Background())
		return sessionsListedMsg{items, err}
	}
}

// switchSession shows sess in place of the current conversation and goes
// on with it.
func (m *Model) switchSession(sess *Session) {
	l, err := sess.NewLoop(m.cfg.Model)
	if err != nil {
		m.chat.append(newErrorItem(m.st, err.Error()))
		return
	}
	m.session, m.loop = sess, l
	m.chat.clear()
	m.forgetItems()
	m.bar.resetTokens()
	m.resetCost(sess)
	m.todos.set(sess.Todos)
	m.bar.session = sessionLabel(sess)
	if m.cfg.Approver != nil {
		m.cfg.Approver.reset()
	}
	msgs := sess.Conv.Messages()
	m.showHistory(msgs)
	if len(msgs) == 0 {
		m.chat.append(newNoteItem(m.st, "New conversation."))
	}
	m.showWaitingQuestion()
	m.chat.bottom()
}

// submit is the one path a prompt takes, whatever sent it (Enter, the
// initial prompt, the queue): a slash command runs at once; text starts a
// turn, or, while a turn runs, is queued and sent when the turn ends.
func (m *Model) submit(text string) tea.Cmd {
	m.quitArmed = time.Time{}
	if strings.HasPrefix(text, "/") {
		m.remember(text)
		return m.command(text)
	}
	if cmd, ok := m.rememberNote(text); ok {
		return cmd
	}
	if m.running {
		m.queue.push(text)
		m.chat.bottom()
		return nil
	}
	return m.startTurn(text)
}

// remember adds text to the prompts that Up recalls.
func (m *Model) remember(text string) {
	m.prompts = append(m.prompts, text)
	m.recall = len(m.prompts)
}

// definition returns the definition of the tool called name, or a bare one
// (ok false) when the interface cannot look it up.
func (m *Model) definition(name string) (tools.Definition, bool) {
	if m.cfg.Definition != nil {
		if def, ok := m.cfg.Definition(name); ok {
			return def, true
		}
	}
	return tools.Definition{Name: name}, false
}

// turns is the runner the interface starts turns through.
func (m *Model) turns() *turn.Runner {
	if m.cfg.Turns != nil {
		return m.cfg.Turns
	}
	return &turn.Runner{Mentions: m.cfg.Mentions}
}

// startTurn shows the prompt and runs a turn with it.
func (m *Model) startTurn(text string) tea.Cmd {
	m.remember(text)
	m.chat.append(newUserItem(m.st, text))
	m.chat.bottom()
	ctx, cancel := context.WithCancel(context.Background())
	m.running, m.cancel, m.started, m.frame = true, cancel, time.Now(), 0
	m.spun.Store(m.started.UnixNano())
	m.turn++
	m.keys.running = true
	m.bar.setRunning(true, 0, 0)
	if m.session.Title == "" {
		m.session.Title = sessions.TitleFromPrompt(text)
		m.bar.session = m.session.Title
	}
	l, conv, runner, prompt := m.loop, m.session.Conv, m.turns(), m.prompt(text)
	run := func() tea.Msg {
		return turnStartedMsg{events: runner.Turn(ctx, l, conv, prompt)}
	}
	return tea.Batch(run, tick(m.turn, &m.spun))
}

// sendQueued starts a turn with the oldest queued prompt, if any.
func (m *Model) sendQueued() tea.Cmd {
	if m.running {
		return nil
	}
	text, ok := m.queue.next()
	if !ok {
		return nil
	}
	return m.startTurn(text)
}

// forgetItems drops the references to items that left the pane: output
// that still arrives goes to new items below.
func (m *Model) forgetItems() {
	if m.current != nil {
		m.current.finish()
		m.current = nil
	}
	m.blocks, m.order, m.selected = map[string]*toolBlock{}, nil, -1
}

// showWaitingQuestion shows again, after the pane was cleared (/clear, a
// new or another session), the question that still waits for its answer
// (a project's MCP server asks outside any turn): a menu off the screen
// would still take Enter.
func (m *Model) showWaitingQuestion() {
	p := m.approving
	if p == nil {
		return
	}
	b := m.questionBlock(p.req)
	b.setWaiting(true)
	m.syncApproval()
}

// command runs a slash command.
func (m *Model) command(text string) tea.Cmd {
	cmd, arg, ok := parseSlash(text)
	if !ok && m.isCustom(text) {
		// A prompt like any other: the turn runner expands it.
		if m.running {
			m.queue.push(text)
			m.chat.bottom()
			return nil
		}
		return m.startTurn(text)
	}
	if !ok {
		m.chat.append(newErrorItem(m.st, fmt.Sprintf("Unknown command %s; /help lists them.", strings.Fields(text)[0])))
		return nil
	}
	switch cmd.name {
	case "/quit":
		m.cancelTurn()
		return tea.Quit
	case "/help":
		m.fullHelp, m.help.ShowAll = true, true
		m.chat.append(newNoteItem(m.st, commandHelp(withCustom(m.customCommands()))))
	case "/sessions":
		return m.openPicker()
	case "/undo":
		if m.cfg.Sessions == nil {
			m.chat.append(newNoteItem(m.st, "Sessions are not saved in this run, so there is nothing to undo."))
			return nil
		}
		if m.running {
			m.chat.append(newNoteItem(m.st, "Cancel the running turn (Esc) before undoing."))
			return nil
		}
		sessions, id := m.cfg.Sessions, m.session.ID
		return func() tea.Msg {
			text, err := sessions.Undo(context.Background(), id)
			if err != nil {
				return storeErrMsg{fmt.Errorf("undo: %w", err)}
			}
			return undoneMsg{text}
		}
	case "/clear":
		m.chat.clear()
		m.forgetItems()
		m.showWaitingQuestion()
	case "/new":
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
	case "/model":
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
	case "/init":
		// A prompt like any other: queued while a turn runs.
		return m.submit(initPrompt)
	case "/cost":
		m.chat.append(newNoteItem(m.st, m.cost.report()))
	case "/tools":
		m.chat.append(newNoteItem(m.st, m.toolsNote()))
	case "/hooks":
		note := "No hooks: add [[hooks.EVENT]] to the config file, or hooks to .claude/settings.json."
		if m.cfg.Hooks != nil {
			note = m.cfg.Hooks()
		}
		m.chat.append(newNoteItem(m.st, note))
	case "/mcp":
		if name, ok := strings.CutPrefix(strings.TrimSpace(arg), "login"); ok && m.cfg.MCPLogin != nil {
			return m.mcpLogin(strings.TrimSpace(name))
		}
		note := "No MCP servers configured: add [mcp.servers.NAME] to the config file, or a .mcp.json to the project."
		if m.cfg.MCP != nil {
			note = m.cfg.MCP()
		}
		m.chat.append(newNoteItem(m.st, note))
	case "/context":
		m.chat.append(newNoteItem(m.st, contextNote(m.loop.Context(m.session.Conv))))
	case "/compact":
		return m.startCompact(arg)
	case "/memory":
		return m.editMemory()
	}
	m.chat.bottom()
	return nil
}

// isCustom reports whether text names a custom command.
func (m *Model) isCustom(text string) bool {
	name, _, _ := strings.Cut(strings.TrimSpace(text), " ")
	for _, c := range m.customCommands() {
		if "/"+c.Name == name {
			return true
		}
	}
	return false
}

// gitStatus runs `git status --short` in dir (a command, so no I/O in
// Update) and reports it when dir is a git work tree with changes.
func gitStatus(dir string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, "git", "-C", dir, "status", "--short").Output()
		text := strings.TrimRight(string(out), "\n")
		if err != nil || text == "" {
			return nil
		}
		lines := strings.Split(text, "\n")
		if len(lines) > gitStatusLines {
			lines = append(lines[:gitStatusLines], fmt.Sprintf("… %d more", len(lines)-gitStatusLines))
		}
		return gitStatusMsg{strings.Join(lines, "\n")}
	}
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
