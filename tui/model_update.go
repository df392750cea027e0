package tui

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// The handlers of Update's messages, one per message or family of messages.

// resize fits the input and the help to a terminal of width × height cells.
func (m *Model) resize(width, height int) {
	m.width, m.height = width, height
	m.input.SetWidth(width)
	m.input.SetHeight(inputHeight(height))
	m.help.SetWidth(width)
}

// paste gives pasted text to an open approval question that takes it, or
// else to the input.
func (m *Model) paste(msg tea.PasteMsg) tea.Cmd {
	if m.approvalPaste(msg.Content) {
		m.syncApproval()
		return nil
	}
	m.lastKey = m.now()
	if p, ok := imagePathOf(msg.Content, m.cfg.Dir); ok {
		return readImageFile(p, msg.Content)
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	m.syncApproval()
	return tea.Batch(cmd, m.armLater(), m.refreshMentions())
}

// wheel scrolls the chat three lines per notch of the mouse wheel.
func (m *Model) wheel(button tea.MouseButton) {
	switch button {
	case tea.MouseWheelUp:
		m.chat.scrollUp(3)
	case tea.MouseWheelDown:
		m.chat.scrollDown(3)
	}
}

// turnStarted starts reading the events of the turn that started.
func (m *Model) turnStarted(msg turnStartedMsg) tea.Cmd {
	m.events = msg.events
	m.cost.startTurn()
	return waitEvent(m.events, time.Time{})
}

// turnClosed forgets the channel of the turn whose events all arrived,
// unless a newer turn's channel took its place.
func (m *Model) turnClosed(msg turnClosedMsg) {
	if msg.ch == m.events {
		m.events = nil
	}
}

// eventsArrived handles a batch of a turn's events and waits for the next
// batch. An earlier turn's channel is read to its close.
func (m *Model) eventsArrived(msg eventsMsg) tea.Cmd {
	now := time.Now()
	cmds := []tea.Cmd{waitEvent(msg.ch, nextFrame(msg, now))}
	for _, ev := range msg.evs {
		cmds = append(cmds, m.handleEvent(ev))
	}
	if m.running {
		// This batch redraws the screen anyway: it brings the
		// spinner along, and the tick waits (see tick).
		m.spin(now)
	}
	return tea.Batch(cmds...)
}

// ticked turns the spinner one frame and schedules the next, while the
// turn the tick belongs to runs.
func (m *Model) ticked(msg tickMsg) tea.Cmd {
	if !m.running || msg.turn != m.turn {
		return nil
	}
	m.spin(time.Now())
	return tick(m.turn, &m.spun)
}

// modelSwitched shows the outcome of /model: the new model in the status
// bar and a note, or the error.
func (m *Model) modelSwitched(msg modelSwitchedMsg) {
	if msg.err != nil {
		m.chat.append(newErrorItem(m.st, msg.err.Error()))
	} else {
		m.loop, m.cfg.Model = msg.loop, msg.model
		m.bar.setModel(msg.model, m.cfg.ContextWindow)
		m.chat.append(newNoteItem(m.st, "Model: "+msg.model+"."))
	}
	m.chat.bottom()
}

// sessionsListed fills the open session picker with the stored sessions
// (an empty list, not nil, once they are read) or the error of reading them.
func (m *Model) sessionsListed(msg sessionsListedMsg) {
	if m.picker == nil {
		return
	}
	m.picker.items, m.picker.now = msg.items, time.Now()
	if msg.items == nil {
		m.picker.items = []SessionInfo{}
	}
	if msg.err != nil {
		m.picker.err = msg.err.Error()
	}
}

// sessionOpened closes the session picker and switches to the session
// opened, unless opening failed or a turn is running.
func (m *Model) sessionOpened(msg sessionOpenedMsg) {
	m.picker = nil
	switch {
	case msg.err != nil:
		m.chat.append(newErrorItem(m.st, "Session: "+msg.err.Error()))
	case m.running:
		// A turn started before the switch arrived; it stays with the
		// session it began in.
		m.chat.append(newNoteItem(m.st, "A turn is running: switch sessions when it ends."))
	default:
		m.switchSession(msg.sess)
		if msg.sess.Notice != "" {
			m.chat.append(newNoteItem(m.st, msg.sess.Notice))
		}
	}
}

// reported shows the outcome of work done outside a turn in the chat: the
// git status after commands, or a session store's error.
func (m *Model) reported(msg tea.Msg) {
	switch msg := msg.(type) {
	case gitStatusMsg:
		m.chat.append(newNoteItem(m.st, "Commands ran. git status --short:\n"+msg.out))
		m.chat.bottom()
	case storeErrMsg:
		m.chat.append(newErrorItem(m.st, "Session: "+msg.err.Error()))
	}
}

// quitExpired disarms Ctrl+C's quit when no second press followed the
// first in time, unless a later press armed it again.
func (m *Model) quitExpired(msg quitExpiredMsg) {
	if msg.armed.Equal(m.quitArmed) {
		m.quitArmed = time.Time{}
	}
}
