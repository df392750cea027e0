package tui

import (
	"context"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/agent-dev/agent/tools"
)

// handleKey routes a key press: the session picker, the pane's keys, a
// waiting question's menu (only when it takes keys, see approvalTakesKeys),
// then the keys of the turn and the input.
func (m *Model) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	if m.picker != nil {
		return m.pickerKey(msg)
	}
	if m.modelPick != nil {
		return m.modelPickerKey(msg)
	}
	if m.shellsView != nil {
		return m.shellsDialogKey(msg)
	}
	if m.rewind != nil {
		return m.rewindKey(msg)
	}
	if m.paneKey(msg) {
		return nil
	}
	if key.Matches(msg, m.keys.Mode) {
		return m.switchMode()
	}
	if m.approving != nil {
		if cmd, ok := m.approvalKey(msg); ok {
			if m.approving == nil {
				// The key answered: the next question (the model's next
				// call may ask at once) waits for a quiet keyboard too,
				// so a second press of Enter answers nothing.
				m.lastKey = m.now()
			}
			return cmd
		}
		// Not the menu's: the key goes on as if no question waited, and
		// the menu waits until the keyboard is quiet again.
		m.lastKey = m.now()
		return tea.Batch(m.promptKey(msg), m.armLater())
	}
	m.lastKey = m.now()
	return m.promptKey(msg)
}

// promptKey handles the keys of the turn and the input.
func (m *Model) promptKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	idle := !m.running && m.input.Value() == ""
	if !key.Matches(msg, k.Cancel) {
		m.escArmed = time.Time{}
	}
	if m.vimKey(msg) {
		m.quitArmed = time.Time{}
		return nil
	}
	switch {
	case key.Matches(msg, k.Quit):
		return m.ctrlC()
	case key.Matches(msg, k.Cancel) && idle:
		return m.escIdle()
	case msg.String() == "alt+esc" && idle && m.cfg.Rewind != nil:
		// Esc Esc typed faster than the terminal tells two keys apart.
		return m.openRewind()
	case key.Matches(msg, k.Cancel):
		m.cancelTurn()
		return nil
	case key.Matches(msg, k.Background) && m.shellsKey():
		return m.sendToBackground()
	case key.Matches(msg, k.Complete):
		if m.completeMention() {
			return nil
		}
		m.input.SetValue(complete(m.commands(), m.input.Value()))
		m.input.CursorEnd()
		return nil
	case key.Matches(msg, k.Help) && m.input.Value() == "":
		m.fullHelp = !m.fullHelp
		m.help.ShowAll = m.fullHelp
		return nil
	case key.Matches(msg, k.Send):
		text := strings.TrimSpace(m.input.Value())
		if text == "" {
			// After a cancelled turn the queue waits: Enter sends its next.
			return m.sendQueued()
		}
		m.input.Reset()
		m.vimSent()
		return m.submit(text)
	case key.Matches(msg, k.EditQueued) && m.input.Value() == "" && m.queue.len() > 0:
		text, _ := m.queue.newest()
		m.input.SetValue(text)
		m.input.CursorEnd()
		if m.queueNote != nil {
			m.keepQueueNote()
		}
		return nil
	case key.Matches(msg, k.DropQueued) && m.queue.len() > 0:
		m.queue.newest()
		if m.queueNote != nil {
			m.keepQueueNote()
		}
		return nil
	case msg.String() == "ctrl+v":
		return pasteClipboard(msg)
	case key.Matches(msg, k.HistoryPrev) && m.input.Line() == 0:
		m.recallPrompt(-1)
		return nil
	case key.Matches(msg, k.HistoryNext) && m.input.Line() == m.input.LineCount()-1:
		m.recallPrompt(+1)
		return nil
	}
	m.quitArmed = time.Time{}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return cmd
}

// pickerKey handles keys while the session picker is open.
func (m *Model) pickerKey(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "up", "ctrl+p":
		m.picker.move(-1)
	case "down", "ctrl+n":
		m.picker.move(+1)
	case "enter":
		if it, ok := m.picker.selected(); ok {
			sessions, id := m.cfg.Sessions, it.ID
			return func() tea.Msg {
				sess, err := sessions.Open(context.Background(), id)
				return sessionOpenedMsg{sess, err}
			}
		}
	case "esc", "ctrl+c", "q":
		m.picker = nil
		return m.sendPending()
	}
	return nil
}

// sendPending sends the initial prompt held while the picker was open.
func (m *Model) sendPending() tea.Cmd {
	p := m.pending
	if p == "" || m.picker != nil {
		return nil
	}
	m.pending = ""
	return func() tea.Msg { return submitMsg{p} }
}

// paneKey handles the keys that scroll the pane and select or expand tool
// blocks; they work at any time, also while a question waits.
func (m *Model) paneKey(msg tea.KeyPressMsg) bool {
	k := m.keys
	switch {
	case key.Matches(msg, k.PageUp):
		m.chat.pageUp()
	case key.Matches(msg, k.PageDown):
		m.chat.pageDown()
	case key.Matches(msg, k.Top):
		m.chat.top()
	case key.Matches(msg, k.Bottom):
		m.chat.bottom()
	case key.Matches(msg, k.SelectPrev):
		m.selectBlock(-1)
	case key.Matches(msg, k.SelectNext):
		m.selectBlock(+1)
	case key.Matches(msg, k.Todo):
		m.todos.folded = !m.todos.folded
	case key.Matches(msg, k.Expand):
		if b := m.selectedBlock(); b != nil {
			b.setExpanded(!b.expanded)
			m.chat.reveal(b)
		}
	default:
		return false
	}
	return true
}

// switchMode cycles the permission mode ask → auto → plan (Shift+Tab);
// the calls asked about from then on are decided in the new mode. Deny rules
// hold in both (the policy that decides is the command's). A question
// waiting when the mode switches is decided again in the new mode: switching
// to auto allows the call that auto would not have asked about (the person
// said to stop asking about such calls), and a call the new mode still asks
// about keeps waiting for its answer, as does one whose denial the person
// is typing.
func (m *Model) switchMode() tea.Cmd {
	next := map[string]string{"ask": "auto", "auto": "plan", "plan": "ask"}[m.bar.mode]
	if next == "" || m.cfg.SetPermissionMode == nil {
		m.chat.append(newNoteItem(m.st, "The permission mode cannot be switched in this run (--yolo)."))
		m.chat.bottom()
		return nil
	}
	m.cfg.SetPermissionMode(next)
	m.bar.mode = next
	what := "commands run in the sandbox and file changes in the working directory proceed without asking; deny rules still hold"
	switch next {
	case "ask":
		what = "commands and file changes are asked about"
	case "plan":
		what = "only read-only tools run; the model investigates and proposes a plan for you to approve"
	}
	m.chat.append(newNoteItem(m.st, "Permission mode: "+next+" ("+what+"). Shift+Tab switches back."))
	m.chat.bottom()
	p := m.approving
	if p == nil || p.req.recheck == nil || p.instructing {
		return nil // a denial being typed is the person's answer in the making
	}
	d, ok := p.req.recheck()
	if !ok {
		return nil
	}
	outcome := "allowed"
	if !d.Allow {
		outcome = "denied"
	}
	m.chat.append(newNoteItem(m.st, "The waiting "+p.req.call.Name+" call is "+outcome+" in "+next+" mode."))
	m.chat.bottom()
	return m.answer(approvalAnswer{decided: &d})
}

// ctrlC cancels a running turn; on an idle prompt it quits, at once when
// the input is empty. A second press within quitWindow always quits: after
// one that cancelled a turn (which may have been ending anyway, its answer
// already on the screen) or one that met text in the input.
func (m *Model) ctrlC() tea.Cmd {
	armed := !m.quitArmed.IsZero() && time.Since(m.quitArmed) < quitWindow
	if armed || (!m.running && m.input.Value() == "") {
		return tea.Quit
	}
	m.cancelTurn()
	m.quitArmed = time.Now()
	at := m.quitArmed
	return tea.Tick(quitWindow, func(time.Time) tea.Msg { return quitExpiredMsg{at} })
}

func (m *Model) cancelTurn() {
	if m.cancel != nil {
		m.cancel()
	}
}

// answer sends the person's answer to the waiting approval question.
func (m *Model) answer(ans approvalAnswer) tea.Cmd {
	req := m.approving.req
	m.approving = nil
	if b := m.blocks[req.call.ID]; b != nil {
		b.setWaiting(false)
		if req.text != "" { // not a call of the loop: no result will come
			switch {
			case ans.allow:
				b.finish("allowed", false, 0, nil)
			case ans.dismissed:
				b.finish("dismissed", true, 0, map[string]any{tools.MetaDenied: true})
			default:
				b.finish("refused", true, 0, map[string]any{tools.MetaDenied: true})
			}
		}
	}
	return tea.Batch(
		func() tea.Msg { req.reply <- ans; return nil },
		waitApproval(m.cfg.Approver),
	)
}

// questionBlock returns the block a question waits in, showing it: the
// call's block, made when the question comes before the call's start event
// (or is no call of the loop).
func (m *Model) questionBlock(req approvalRequest) *toolBlock {
	b := m.block(req.call.ID, req.call.Name, req.summary)
	b.commands = b.commands || req.commands
	if req.diff != "" {
		b.setDiff(req.diff)
	}
	b.question = req.text
	if req.origin != "" && req.text == "" {
		b.question = req.origin + " asks: " + b.defaultQuestion()
	}
	if req.origin != "" {
		b.origin = req.origin // labelled with it; its result comes as the subagent's event
	}
	if req.plan {
		b.question = "Approve this plan?"
	}
	b.warning = req.warning
	return b
}

// askApproval shows a question in the call's block, creating the block if
// the question arrived before the call's start event.
func (m *Model) askApproval(req approvalRequest) tea.Cmd {
	m.shellsView = nil // the question must be seen: it takes the keys
	m.closeRewind()
	m.approving = &pendingApproval{req: req}
	b := m.questionBlock(req)
	b.setWaiting(true)
	m.syncApproval()
	m.chat.bottom()
	return m.armLater()
}

func (m *Model) selectedBlock() *toolBlock {
	if len(m.order) == 0 {
		return nil
	}
	if m.selected < 0 || m.selected >= len(m.order) {
		return m.order[len(m.order)-1]
	}
	return m.order[m.selected]
}

func (m *Model) selectBlock(delta int) {
	if len(m.order) == 0 {
		return
	}
	if cur := m.selectedBlock(); cur != nil {
		cur.setSelected(false)
	}
	if m.selected < 0 {
		m.selected = len(m.order) - 1
	}
	m.selected = min(max(m.selected+delta, 0), len(m.order)-1)
	m.order[m.selected].setSelected(true)
	m.chat.reveal(m.order[m.selected])
}

// recallPrompt steps through earlier prompts; stepping past the newest
// brings back what was typed before recalling.
func (m *Model) recallPrompt(delta int) {
	if len(m.prompts) == 0 {
		return
	}
	if m.recall == len(m.prompts) {
		m.draft = m.input.Value()
	}
	m.recall = min(max(m.recall+delta, 0), len(m.prompts))
	if m.recall == len(m.prompts) {
		m.input.SetValue(m.draft)
	} else {
		m.input.SetValue(m.prompts[m.recall])
	}
	m.input.CursorEnd()
}
