package tui

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/agent-dev/agent/conversation"
	"github.com/agent-dev/agent/loop"
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

// showHistory puts an earlier conversation in the pane (showMessages) and
// says that it goes with the next prompt.
func (m *Model) showHistory(msgs []providers.Message) {
	m.showMessages(msgs)
	if len(msgs) > 0 {
		m.chat.append(newNoteItem(m.st, "Resumed: the conversation above is sent with your next prompt."))
	}
}

// rewoundSummaryNote opens the note that shows the summary a rewind put in
// place of the conversation that followed a prompt.
const rewoundSummaryNote = "The conversation from here on was rewound and summarized. The summary:\n"

// showMessages puts an earlier conversation in the pane: prompts, answers
// as markdown, a finished tool block per call with its result, and the
// summary of a compaction or of a rewind as a note.
func (m *Model) showMessages(msgs []providers.Message) {
	for _, msg := range msgs {
		switch msg.Role {
		case providers.RoleUser:
			if summary, ok := strings.CutPrefix(msg.Text(), conversation.SummaryPrefix); ok {
				m.chat.append(newNoteItem(m.st, "Earlier conversation, compacted. Its summary:\n"+summary))
				break
			}
			text, summary, summarized := strings.Cut(msg.Text(), loop.SummaryFromPrefix)
			if summarized && strings.TrimSpace(text) == "" {
				m.chat.append(newNoteItem(m.st, rewoundSummaryNote+summary))
				break
			}
			if summarized {
				text = strings.TrimSpace(text)
			}
			prompt, attached := mention.Strip(text)
			m.chat.append(newUserItem(m.st, prompt))
			if len(attached) > 0 {
				m.chat.append(newNoteItem(m.st, "Attached "+strings.Join(attached, ", ")+"."))
			}
			m.prompts = append(m.prompts, prompt)
			if summarized { // the summary joined a prompt whose turn had failed
				m.chat.append(newNoteItem(m.st, rewoundSummaryNote+summary))
			}
		case providers.RoleAssistant:
			for _, p := range msg.Parts {
				switch p := p.(type) {
				case providers.Reasoning:
					m.assistant().appendReasoning(p.Text)
				case providers.Text:
					if p.Text == loop.CancelledMarker { // the answer was cut here by Esc
						m.noteAfterText("Cancelled.")
						break
					}
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
// on with it. notes, when there are any, are shown under its messages in
// place of the one that says it was resumed (or is new). It reports
// whether it switched: a session whose loop cannot be built is not.
func (m *Model) switchSession(sess *Session, notes ...string) bool {
	l, err := sess.NewLoop(m.cfg.Model)
	if err != nil {
		m.chat.append(newErrorItem(m.st, err.Error()))
		return false
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
	m.showMessages(msgs)
	switch {
	case len(notes) > 0:
		for _, n := range notes {
			m.chat.append(newNoteItem(m.st, n))
		}
	case len(msgs) > 0:
		m.chat.append(newNoteItem(m.st, "Resumed: the conversation above is sent with your next prompt."))
	default:
		m.chat.append(newNoteItem(m.st, "New conversation."))
	}
	m.showWaitingQuestion()
	m.chat.bottom()
	return true
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
	if strings.HasPrefix(text, "!") && m.cfg.Shell != nil {
		return m.shellCommand(text)
	}
	if cmd, ok := m.rememberNote(text); ok {
		return cmd
	}
	return m.sendOrQueue(text)
}

// sendOrQueue starts a turn with text, or, while a turn runs, queues it to
// be sent when the turn ends.
func (m *Model) sendOrQueue(text string) tea.Cmd {
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
	if m.queueNote != nil {
		m.keepQueueNote()
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

// command runs the slash command text names (Model.commands), or says
// that none has its name.
func (m *Model) command(text string) tea.Cmd {
	c, arg, ok := lookup(m.commands(), text)
	if !ok {
		m.chat.append(newErrorItem(m.st, fmt.Sprintf("Unknown command %s; /help lists them.", strings.Fields(text)[0])))
		return nil
	}
	return c.run(m, arg, text)
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
