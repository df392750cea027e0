package tui

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
)

// Config is what the interface needs from the command that starts it.
type Config struct {
	// Model is the model name; Dir the working directory.
	Model string
	Dir   string
	// Session is the conversation to start with (new or resumed).
	Session *Session
	// Sessions reaches the session store for /new, /sessions and the
	// picker, and records turns; nil keeps nothing.
	Sessions Sessions
	// PickSession opens the session picker at start (agent -r).
	PickSession bool
	// Tools returns the names of every tool and of those picked now.
	Tools func() (all, picked []string)
	// Approver receives the loop's approval questions; nil asks nothing.
	Approver *Approver
	// Prompt, when not empty, is sent as soon as the interface starts.
	Prompt string
	// Warning is shown in the status line (for example in yolo mode).
	Warning string
	// ContextWindow is the model's context window in tokens; 0 looks the
	// model up in a table of common models.
	ContextWindow int
}

// pickToolsName is the tool that picks tools (tools/picker.PickToolsName;
// the interface does not import the tools). Its calls show as one-line notes
// rather than tool blocks.
const pickToolsName = "pick_tools"

// quitWindow is how soon a second Ctrl+C must follow the first to quit when
// the input is not empty.
const quitWindow = 2 * time.Second

// tickInterval is the spinner's frame time while a turn runs.
const tickInterval = 100 * time.Millisecond

// Messages of the model.
type (
	submitMsg      struct{ text string }
	turnStartedMsg struct{ events <-chan loop.Event }
	eventsMsg      struct {
		ch  <-chan loop.Event
		evs []loop.Event
	}
	turnClosedMsg struct{ ch <-chan loop.Event }
	approvalMsg   struct{ req approvalRequest }
	tickMsg       struct{ turn int }
	// modelSwitchedMsg carries the loop built for /model NAME, built in a
	// command because building reads the project's AGENTS.md.
	modelSwitchedMsg struct {
		model string
		loop  *loop.Loop
		err   error
	}
	quitExpiredMsg struct{ armed time.Time }
	// Session store answers.
	sessionsListedMsg struct {
		items []SessionInfo
		err   error
	}
	sessionOpenedMsg struct {
		sess *Session
		err  error
	}
	sessionTitledMsg struct {
		id, title string
		err       error
	}
	storeErrMsg struct{ err error }
	// gitStatusMsg is `git status --short` after a turn that ran bash.
	gitStatusMsg struct{ out string }
	undoneMsg    struct{ text string }
)

// Model is the one top-level Bubble Tea model of the interface.
type Model struct {
	cfg   Config
	st    *styles
	keys  keyMap
	help  help.Model
	input textarea.Model
	chat  *chatList
	bar   *status
	loop  *loop.Loop

	session *Session       // the conversation being shown and continued
	picker  *sessionPicker // the session picker, when open
	pending string         // the initial prompt, held until a session is picked

	history []providers.Message // the conversation sent with each prompt
	prompts []string            // earlier prompts, oldest first
	recall  int                 // index into prompts while recalling; len(prompts) when not
	draft   string              // the input as it was before recalling

	running   bool
	ranBash   bool // the running turn ran a command (its changes are not undoable)
	turn      int  // counts turns; ticks of an earlier turn are dropped
	events    <-chan loop.Event
	cancel    context.CancelFunc
	started   time.Time
	current   *assistantItem
	blocks    map[string]*toolBlock
	order     []*toolBlock // tool blocks in order, for selection
	selected  int          // index into order; -1 when none
	approving *approvalRequest
	frame     int

	width, height int
	quitArmed     time.Time
	fullHelp      bool
}

// New returns the model; err when the session's loop cannot be built.
func New(cfg Config) (*Model, error) {
	if cfg.Session == nil || cfg.Session.NewLoop == nil {
		return nil, fmt.Errorf("interface: no session to show")
	}
	l, err := cfg.Session.NewLoop(cfg.Model)
	if err != nil {
		return nil, err
	}
	st := newStyles(true)
	in := textarea.New()
	in.Placeholder = "Ask about this repository…  (/help for commands)"
	in.ShowLineNumbers = false
	in.Prompt = "│ "
	in.SetHeight(inputHeight(24))
	in.KeyMap.InsertNewline = key.NewBinding(key.WithKeys("shift+enter", "ctrl+j"))
	in.Focus()
	m := &Model{
		cfg: cfg, st: st, keys: newKeyMap(), help: help.New(), input: in,
		chat: newChatList(), loop: l, blocks: map[string]*toolBlock{}, selected: -1,
		session: cfg.Session,
	}
	m.bar = newStatus(st, cfg.Model, cfg.Dir, sessionLabel(cfg.Session), cfg.ContextWindow)
	m.bar.warning = cfg.Warning
	m.showHistory(cfg.Session.History)
	return m, nil
}

// sessionLabel is what the status line calls a session: its title, else
// its id.
func sessionLabel(s *Session) string {
	if s.Title != "" {
		return s.Title
	}
	return s.ID
}

// showHistory puts an earlier conversation in the pane and makes it the
// history the next prompt is sent with: prompts, answers as markdown, and a
// finished tool block per call with its result.
func (m *Model) showHistory(msgs []providers.Message) {
	m.history = append([]providers.Message(nil), msgs...)
	for _, msg := range msgs {
		switch msg.Role {
		case providers.RoleUser:
			m.chat.append(newUserItem(m.st, msg.Text()))
			m.prompts = append(m.prompts, msg.Text())
		case providers.RoleAssistant:
			for _, p := range msg.Parts {
				switch p := p.(type) {
				case providers.Reasoning:
					m.assistant().appendReasoning(p.Text)
				case providers.Text:
					m.assistant().appendText(p.Text)
				case providers.ToolCall:
					if p.Name != pickToolsName {
						m.block(p.ID, p.Name, p.Arguments)
					}
				}
			}
		case providers.RoleTool:
			for _, p := range msg.Parts {
				if r, ok := p.(providers.ToolResult); ok && r.Name != pickToolsName {
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

// Init asks for the background colour, listens for approval questions and
// sends the initial prompt.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{tea.RequestBackgroundColor, textarea.Blink}
	if m.cfg.Approver != nil {
		cmds = append(cmds, waitApproval(m.cfg.Approver))
	}
	p := strings.TrimSpace(m.cfg.Prompt)
	switch {
	case m.cfg.PickSession:
		m.pending = p // sent to the session the person picks (or the fresh one)
		cmds = append(cmds, m.openPicker())
	case p != "":
		cmds = append(cmds, func() tea.Msg { return submitMsg{p} })
	}
	return tea.Batch(cmds...)
}

// maxEventBatch bounds how many waiting events one message carries.
const maxEventBatch = 256

// waitEvent waits for the next event of the running turn and takes the
// events already waiting behind it too, so that a burst of deltas costs one
// render, not one per delta. A closed channel gives turnClosedMsg (after
// the events read before it).
func waitEvent(ch <-chan loop.Event) tea.Cmd {
	return func() tea.Msg {
		ev, ok := <-ch
		if !ok {
			return turnClosedMsg{ch}
		}
		evs := []loop.Event{ev}
		for len(evs) < maxEventBatch {
			select {
			case ev, ok := <-ch:
				if !ok {
					return eventsMsg{ch, evs} // the next wait sees the close
				}
				evs = append(evs, ev)
			default:
				return eventsMsg{ch, evs}
			}
		}
		return eventsMsg{ch, evs}
	}
}

// waitApproval reads the next approval question.
func waitApproval(a *Approver) tea.Cmd {
	return func() tea.Msg { return approvalMsg{<-a.requests} }
}

func tick(turn int) tea.Cmd {
	return tea.Tick(tickInterval, func(time.Time) tea.Msg { return tickMsg{turn} })
}

// Update handles one message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.input.SetWidth(msg.Width)
		m.input.SetHeight(inputHeight(msg.Height))
		m.help.SetWidth(msg.Width)
		return m, nil
	case tea.BackgroundColorMsg:
		if msg.IsDark() == m.st.Dark {
			return m, nil
		}
		*m.st = *newStyles(msg.IsDark())
		for i := range m.chat.len() {
			if r, ok := m.chat.at(i).(restyler); ok {
				r.restyle()
			}
		}
		m.input.SetStyles(textarea.DefaultStyles(msg.IsDark()))
		m.help.Styles = help.DefaultStyles(msg.IsDark())
		return m, nil
	case tea.KeyPressMsg:
		return m, m.handleKey(msg)
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			m.chat.scrollUp(3)
		case tea.MouseWheelDown:
			m.chat.scrollDown(3)
		}
		return m, nil
	case submitMsg:
		return m, m.submit(msg.text)
	case turnStartedMsg:
		m.events = msg.events
		return m, waitEvent(m.events)
	case eventsMsg:
		cmds := []tea.Cmd{waitEvent(msg.ch)} // an earlier turn's channel is read to its close
		for _, ev := range msg.evs {
			cmds = append(cmds, m.handleEvent(ev))
		}
		return m, tea.Batch(cmds...)
	case turnClosedMsg:
		if msg.ch == m.events {
			m.events = nil
		}
		return m, nil
	case modelSwitchedMsg:
		if msg.err != nil {
			m.chat.append(newErrorItem(m.st, msg.err.Error()))
		} else {
			m.loop, m.cfg.Model = msg.loop, msg.model
			m.bar.setModel(msg.model, m.cfg.ContextWindow)
			m.chat.append(newNoteItem(m.st, "Model: "+msg.model+"."))
		}
		m.chat.bottom()
		return m, nil
	case sessionsListedMsg:
		if m.picker != nil {
			m.picker.items, m.picker.now = msg.items, time.Now()
			if msg.items == nil {
				m.picker.items = []SessionInfo{}
			}
			if msg.err != nil {
				m.picker.err = msg.err.Error()
			}
		}
		return m, nil
	case sessionOpenedMsg:
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
		}
		return m, m.sendPending()
	case sessionTitledMsg:
		if msg.err != nil {
			m.chat.append(newErrorItem(m.st, "Saving the session: "+msg.err.Error()))
		} else if m.session != nil && msg.id == m.session.ID && msg.title != "" {
			m.session.Title = msg.title
			m.bar.session = msg.title
		}
		return m, nil
	case undoneMsg:
		m.chat.append(newNoteItem(m.st, msg.text))
		m.chat.bottom()
		return m, nil
	case gitStatusMsg:
		m.chat.append(newNoteItem(m.st, "Commands ran, and /undo does not cover them. git status --short:\n"+msg.out))
		m.chat.bottom()
		return m, nil
	case storeErrMsg:
		m.chat.append(newErrorItem(m.st, "Session: "+msg.err.Error()))
		return m, nil
	case quitExpiredMsg:
		if msg.armed.Equal(m.quitArmed) {
			m.quitArmed = time.Time{}
		}
		return m, nil
	case approvalMsg:
		m.askApproval(msg.req)
		return m, nil
	case tickMsg:
		if !m.running || msg.turn != m.turn {
			return m, nil
		}
		m.frame++
		m.bar.setRunning(true, time.Since(m.started), m.frame)
		for _, b := range m.order {
			b.setFrame(m.frame)
		}
		return m, tick(m.turn)
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return m, cmd
}

// handleKey routes a key press: approval answers first, then the keys of
// the pane and the turn, then the input.
func (m *Model) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	if m.picker != nil {
		return m.pickerKey(msg)
	}
	if m.paneKey(msg) {
		return nil
	}
	if m.approving != nil {
		switch {
		case key.Matches(msg, k.AllowOnce):
			return m.answer(approvalAnswer{allow: true})
		case key.Matches(msg, k.AllowSession):
			return m.answer(approvalAnswer{allow: true, forSession: true})
		case msg.String() == "esc", msg.String() == "ctrl+c":
			cmd := m.answer(approvalAnswer{})
			m.cancelTurn()
			return cmd
		case key.Matches(msg, k.Deny):
			return m.answer(approvalAnswer{})
		}
		return nil // nothing else runs while a question waits
	}
	switch {
	case key.Matches(msg, k.Quit):
		return m.ctrlC()
	case key.Matches(msg, k.Cancel):
		m.cancelTurn()
		return nil
	case key.Matches(msg, k.Complete):
		m.input.SetValue(complete(m.input.Value()))
		m.input.CursorEnd()
		return nil
	case key.Matches(msg, k.Help) && m.input.Value() == "":
		m.fullHelp = !m.fullHelp
		m.help.ShowAll = m.fullHelp
		return nil
	case key.Matches(msg, k.Send):
		text := strings.TrimSpace(m.input.Value())
		if text == "" {
			return nil
		}
		if m.running && !strings.HasPrefix(text, "/") {
			// Keep what was typed; it can be sent when the turn ends.
			m.chat.append(newNoteItem(m.st, "A turn is running: press Enter again when it ends, or Esc to cancel it."))
			m.chat.bottom()
			return nil
		}
		m.input.Reset()
		return m.submit(text)
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
	m.session, m.loop, m.history = sess, l, nil
	m.chat.clear()
	m.forgetItems()
	m.bar.resetTokens()
	m.bar.session = sessionLabel(sess)
	if m.cfg.Approver != nil {
		m.cfg.Approver.reset()
	}
	m.showHistory(sess.History)
	if len(sess.History) == 0 {
		m.chat.append(newNoteItem(m.st, "New conversation."))
	}
	m.chat.bottom()
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
	case key.Matches(msg, k.Expand):
		if b := m.selectedBlock(); b != nil {
			b.setExpanded(!b.expanded)
		}
	default:
		return false
	}
	return true
}

// ctrlC cancels a running turn; on an idle prompt it quits, at once when
// the input is empty, else on a second press within quitWindow.
func (m *Model) ctrlC() tea.Cmd {
	if m.running {
		m.cancelTurn()
		return nil
	}
	if m.input.Value() == "" || (!m.quitArmed.IsZero() && time.Since(m.quitArmed) < quitWindow) {
		return tea.Quit
	}
	m.quitArmed = time.Now()
	armed := m.quitArmed
	return tea.Tick(quitWindow, func(time.Time) tea.Msg { return quitExpiredMsg{armed} })
}

func (m *Model) cancelTurn() {
	if m.cancel != nil {
		m.cancel()
	}
}

// answer sends the person's answer to the waiting approval question.
func (m *Model) answer(ans approvalAnswer) tea.Cmd {
	req := *m.approving
	m.approving = nil
	m.keys.approving = false
	if b := m.blocks[req.call.ID]; b != nil {
		b.setWaiting(false)
	}
	return tea.Batch(
		func() tea.Msg { req.reply <- ans; return nil },
		waitApproval(m.cfg.Approver),
	)
}

// askApproval shows a question in the call's block, creating the block if
// the question arrived before the call's start event.
func (m *Model) askApproval(req approvalRequest) {
	m.approving = &req
	m.keys.approving = true
	b := m.block(req.call.ID, req.call.Name, req.call.Arguments)
	if req.diff != "" {
		b.setDiff(req.diff)
	}
	b.setWaiting(true)
	m.chat.bottom()
}

// block returns the block of a tool call, adding it to the pane when new.
func (m *Model) block(id, name, args string) *toolBlock {
	if b, ok := m.blocks[id]; ok {
		return b
	}
	if m.current != nil {
		m.current.finish()
		m.current = nil
	}
	b := newToolBlock(m.st, id, name, args)
	m.blocks[id] = b
	m.order = append(m.order, b)
	m.chat.append(b)
	return b
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

// submit runs a slash command or starts a turn with text.
func (m *Model) submit(text string) tea.Cmd {
	m.prompts = append(m.prompts, text)
	m.recall = len(m.prompts)
	m.quitArmed = time.Time{}
	if strings.HasPrefix(text, "/") {
		return m.command(text)
	}
	if m.running {
		m.chat.append(newNoteItem(m.st, "A turn is running: wait for it, or press Esc to cancel it."))
		return nil
	}
	m.chat.append(newUserItem(m.st, text))
	m.chat.bottom()
	ctx, cancel := context.WithCancel(context.Background())
	m.running, m.cancel, m.started, m.frame = true, cancel, time.Now(), 0
	m.turn++
	m.keys.running = true
	m.bar.setRunning(true, 0, 0)
	history := append([]providers.Message(nil), m.history...)
	l := m.loop
	cmds := []tea.Cmd{func() tea.Msg { return turnStartedMsg{l.Run(ctx, history, text)} }, tick(m.turn)}
	if sessions := m.cfg.Sessions; sessions != nil {
		id := m.session.ID
		cmds = append(cmds, func() tea.Msg {
			title, err := sessions.Started(context.Background(), id, text)
			return sessionTitledMsg{id, title, err}
		})
	}
	return tea.Batch(cmds...)
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

// command runs a slash command.
func (m *Model) command(text string) tea.Cmd {
	cmd, arg, ok := parseSlash(text)
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
		m.chat.append(newNoteItem(m.st, commandHelp()))
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
		m.switchSession(&Session{ID: m.session.ID, NewLoop: m.session.NewLoop})
	case "/model":
		if arg == "" {
			m.chat.append(newNoteItem(m.st, "Model: "+m.cfg.Model+". Switch with /model NAME."))
			return nil
		}
		if m.running {
			m.chat.append(newNoteItem(m.st, "Cancel the running turn (Esc) before switching models."))
			return nil
		}
		newLoop := m.session.NewLoop
		return func() tea.Msg {
			l, err := newLoop(arg)
			return modelSwitchedMsg{model: arg, loop: l, err: err}
		}
	case "/tools":
		all, picked := m.cfg.Tools()
		line := "Tools: " + strings.Join(all, ", ") + "."
		if len(picked) > 0 {
			line += " Picked in this turn: " + strings.Join(picked, ", ") + "."
		} else {
			line += " None picked now: the model picks what it needs in each turn."
		}
		m.chat.append(newNoteItem(m.st, line))
	}
	m.chat.bottom()
	return nil
}

// handleEvent applies one loop event to the conversation pane.
func (m *Model) handleEvent(ev loop.Event) tea.Cmd {
	switch ev := ev.(type) {
	case loop.TextDelta:
		m.assistant().appendText(ev.Text)
	case loop.ReasoningDelta:
		m.assistant().appendReasoning(ev.Text)
	case loop.ToolCallStarted:
		m.ranBash = m.ranBash || ev.Name == "bash"
		if ev.Name != pickToolsName {
			m.block(ev.ID, ev.Name, ev.Arguments)
		}
	case loop.ToolCallFinished:
		switch {
		case ev.Name != pickToolsName:
			m.block(ev.ID, ev.Name, "").finish(ev.Content, ev.IsError, ev.Duration, ev.Meta)
		case ev.IsError:
			m.chat.append(newErrorItem(m.st, "pick_tools: "+ev.Content))
		}
	case loop.ToolsetChanged:
		if len(ev.Added) > 0 {
			m.noteAfterText("Picked " + strings.Join(ev.Added, ", ") + ".")
		}
	case loop.Retry:
		m.chat.append(newNoteItem(m.st, fmt.Sprintf("Retrying in %s (%d/%d): %s", ev.Delay.Round(100*time.Millisecond), ev.Attempt, ev.Max, ev.Err)))
	case loop.Usage:
		m.bar.addUsage(ev.Usage.InputTokens, ev.Usage.OutputTokens)
	case loop.Done:
		return m.endTurn(ev)
	}
	return nil
}

// noteAfterText adds a note; the assistant message so far is finished, so
// text after the note starts a new message below it.
func (m *Model) noteAfterText(text string) {
	if m.current != nil {
		m.current.finish()
		m.current = nil
	}
	m.chat.append(newNoteItem(m.st, text))
}

// assistant returns the assistant message that deltas go to, starting one
// after a tool block.
func (m *Model) assistant() *assistantItem {
	if m.current == nil {
		m.current = newAssistantItem(m.st)
		m.chat.append(m.current)
	}
	return m.current
}

// endTurn records the turn's messages and says how it ended. A question
// still waiting (it arrived as the turn was cancelled) is answered no.
func (m *Model) endTurn(d loop.Done) tea.Cmd {
	m.history = append(m.history, d.Messages...)
	if m.current != nil {
		m.current.finish()
		m.current = nil
	}
	m.running, m.cancel = false, nil
	m.keys.running = false
	var cmds []tea.Cmd
	if m.approving != nil {
		cmds = append(cmds, m.answer(approvalAnswer{}))
	}
	if sessions := m.cfg.Sessions; sessions != nil {
		id, reason := m.session.ID, d.Reason
		cmds = append(cmds, func() tea.Msg {
			if err := sessions.Ended(context.Background(), id, reason); err != nil {
				return storeErrMsg{err}
			}
			return nil
		})
	}
	if m.ranBash {
		m.ranBash = false
		cmds = append(cmds, gitStatus(m.cfg.Dir))
	}
	cmd := tea.Batch(cmds...)
	m.bar.setRunning(false, 0, 0)
	switch d.Reason {
	case loop.StopCancelled:
		m.chat.append(newNoteItem(m.st, "Cancelled."))
	case loop.StopError:
		m.chat.append(newErrorItem(m.st, "Error: "+errText(d.Err)))
	case loop.StopMaxSteps:
		m.chat.append(newErrorItem(m.st, fmt.Sprintf("Stopped after %d steps (the step limit, --max-steps) before a final answer.", d.Steps)))
	}
	return cmd
}

func errText(err error) string {
	if err == nil {
		return "unknown error"
	}
	return err.Error()
}

// inputHeight is the input's height in rows for a terminal of height rows:
// three, or one in a short terminal.
func inputHeight(height int) int {
	if height < 12 {
		return 1
	}
	return 3
}

// maxHints caps the completion lines shown above the input.
const maxHints = 4

// View lays out the pane, the completion hints, the input, the status line
// and the help line in exactly the terminal's height: when rows run short,
// the help line goes first, then the hints, then the status line; the pane
// takes what is left.
func (m *Model) View() tea.View {
	if m.width == 0 || m.height == 0 {
		return tea.NewView("")
	}
	var hints []string
	for i, h := range completions(m.input.Value()) {
		if i == maxHints {
			break
		}
		hints = append(hints, cutTo(m.st.Dim.Render(fmt.Sprintf("  %-8s %-6s %s", h.name, h.args, h.desc)), m.width))
	}
	help := m.help.View(m.keys)
	if !m.quitArmed.IsZero() {
		help = m.st.Approval.Render("Press Ctrl+C again to quit.")
	}
	helpLines := fitWidth(strings.Split(help, "\n"), m.width)
	status := []string{m.bar.Render(m.width)}
	input := fitWidth(strings.Split(m.input.View(), "\n"), m.width)

	room := m.height - len(input) - 1 // one row at least for the pane
	for _, drop := range []*[]string{&helpLines, &hints, &status} {
		if len(hints)+len(status)+len(helpLines) <= room {
			break
		}
		*drop = nil
	}
	var bottom []string
	bottom = append(bottom, hints...)
	bottom = append(bottom, input...)
	bottom = append(bottom, status...)
	bottom = append(bottom, helpLines...)
	lines := bottom
	if pane := m.height - len(bottom); pane > 0 {
		view := m.chat.View(m.width, pane)
		if m.picker != nil {
			view = m.picker.View(m.width, pane)
		}
		lines = append(strings.Split(view, "\n"), bottom...)
	}
	if len(lines) > m.height { // a terminal smaller than the input itself
		lines = lines[len(lines)-m.height:]
	}
	v := tea.NewView(strings.Join(lines, "\n"))
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "agent"
	return v
}

// gitStatusLines caps the git status shown after a turn.
const gitStatusLines = 20

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
