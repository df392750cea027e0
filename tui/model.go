package tui

import (
	"context"
	"fmt"
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
	// Tools returns the names of every tool and of those offered in full
	// given the conversation's picks.
	Tools func(picked []string) (all, full []string)
	// MCP returns the MCP servers' states and tools, one line each, for
	// /mcp; nil when none are configured.
	MCP func() string
	// AfterFirstFrame, when not nil, is called once, in a command, shortly
	// after the interface drew its first frame: work that must not delay
	// the prompt (starting MCP servers, whose start-up takes the CPU for
	// a few hundred milliseconds) starts there.
	AfterFirstFrame func()
	// Approver receives the loop's approval questions; nil asks nothing.
	Approver *Approver
	// Prompt, when not empty, is sent as soon as the interface starts.
	Prompt string
	// Warning is shown in the status line (for example in yolo mode).
	Warning string
	// ContextWindow is the model's context window in tokens; 0 looks the
	// model up in a table of common models.
	ContextWindow int
	// Price gives a model's price for the status line's cost and /cost;
	// nil, or ok false for a model, shows no cost.
	Price func(model string) (providers.Price, bool)
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

	prompts []string // earlier prompts, oldest first
	recall  int      // index into prompts while recalling; len(prompts) when not
	draft   string   // the input as it was before recalling

	running    bool
	compacting bool // the running "turn" is a /compact
	ranBash    bool // the running turn ran a command (its changes are not undoable)
	turn       int  // counts turns; ticks of an earlier turn are dropped
	events     <-chan loop.Event
	cancel     context.CancelFunc
	started    time.Time
	current    *assistantItem
	blocks     map[string]*toolBlock
	order      []*toolBlock // tool blocks in order, for selection
	selected   int          // index into order; -1 when none
	approving  *approvalRequest
	frame      int

	width, height int
	quitArmed     time.Time
	fullHelp      bool

	cost costMeter // the session's tokens and cost
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
	m.cost.price = cfg.Price
	m.resetCost(cfg.Session)
	m.showHistory(cfg.Session.Conv.Messages())
	return m, nil
}

// Init asks for the background colour, listens for approval questions and
// sends the initial prompt.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{tea.RequestBackgroundColor, textarea.Blink}
	if f := m.cfg.AfterFirstFrame; f != nil {
		// Bubble Tea draws a frame every 1/60 s; this comes after the first.
		cmds = append(cmds, tea.Tick(firstFrameDelay, func(time.Time) tea.Msg { f(); return nil }))
	}
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

// firstFrameDelay is how long after Init AfterFirstFrame runs: a few of
// Bubble Tea's frames.
const firstFrameDelay = 100 * time.Millisecond

// maxEventBatch bounds how many waiting events one message carries.
const maxEventBatch = 256

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
		m.cost.startTurn()
		return m, waitEvent(m.events, time.Time{})
	case eventsMsg:
		// An earlier turn's channel is read to its close.
		cmds := []tea.Cmd{waitEvent(msg.ch, nextFrame(msg, time.Now()))}
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
			if msg.sess.Notice != "" {
				m.chat.append(newNoteItem(m.st, msg.sess.Notice))
			}
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
