package tui

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agent-dev/agent/prefs"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/lsp"
	"github.com/agent-dev/agent/mention"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/turn"
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
	// MCPLogin runs the OAuth authorization of the MCP server name (the
	// browser opens) and returns what became of it, one line for a note;
	// it blocks, and is called in a command. nil: /mcp login is unknown.
	MCPLogin func(name string) string
	// AfterFirstFrame, when not nil, is called once, in a command, shortly
	// after the interface drew its first frame: work that must not delay
	// the prompt (starting MCP servers, whose start-up takes the CPU for
	// a few hundred milliseconds) starts there.
	AfterFirstFrame func()
	// Notices carries one-line notices that arrive while the interface
	// runs (an MCP server that failed to start or stopped, a tool it
	// skipped); each is shown once as a note in the conversation. nil
	// carries none; closing it ends the notices.
	Notices <-chan string
	// Approver receives the loop's approval questions; nil asks nothing.
	Approver *Approver
	// Models lists the server's models for /model without a name; nil
	// only says which model is in use.
	Models func(ctx context.Context) ([]string, error)
	// Mentions completes "@path" words as they are typed and attaches the
	// mentioned files to the prompt when it is sent; nil leaves "@" words
	// as text.
	Mentions *mention.Mentions
	// Scrollback, when not nil, receives after the interface quits the
	// conversation as it was shown and the command that resumes the
	// session, so that both stay in the terminal's scrollback once the
	// alternate screen is gone (tui.Run writes it).
	Scrollback io.Writer
	// Prompt, when not empty, is sent as soon as the interface starts.
	Prompt string
	// Warning is shown in the status line (for example in yolo mode).
	Warning string
	// PermissionMode is the run's permission mode ("ask", "auto", "yolo"),
	// shown in the status line when it is ask or auto. Shift+Tab switches
	// between those two through SetPermissionMode, which must be safe to
	// call while a turn asks for approvals; nil (or yolo) switches nothing.
	PermissionMode    string
	SetPermissionMode func(mode string)
	// ContextWindow is the model's context window in tokens; 0 looks the
	// model up in a table of common models.
	ContextWindow int
	// Remember saves a "#" note to the project's MEMORY.md and returns the
	// file's path; nil sends such prompts as typed. MemoryFile returns
	// MEMORY.md's path, creating it when missing, for /memory; nil: /memory
	// says memory is not kept.
	Remember   func(note string) (string, error)
	MemoryFile func() (string, error)
	// Price gives a model's price for the status line's cost and /cost;
	// nil, or ok false for a model, shows no cost.
	Price func(model string) (providers.Price, bool)
	// Definition gives the definition of a tool by name, for showing the
	// calls of a session's history as their tools summarise them; nil, or
	// ok false (a tool that is gone), shows the arguments as they are.
	Definition func(name string) (tools.Definition, bool)
	// Commands are the custom slash commands, offered in completion and
	// /help; sending one starts a turn with the text as typed.
	Commands []CustomCommand
	// MoreCommands, when not nil, gives the commands that come and go
	// while the interface runs (an MCP server's prompts,
	// /mcp__SERVER__PROMPT), offered and sent as Commands are. It is
	// called while drawing: it must be quick and do no I/O.
	MoreCommands func() []CustomCommand
	// LanguageServers are the session's language servers with their
	// state, for /lsp; nil (or none) says there are none. Diagnostics
	// counts the errors and warnings they report now, for the status
	// line, read after each tool result and turn; nil shows none. Both
	// are called in Update: they must be quick and do no I/O.
	LanguageServers func() []lsp.State
	Diagnostics     func() (errors, warnings int)
	// Hooks lists the hooks and their sources for /hooks; nil says there
	// are none.
	Hooks func() string
	// Worktrees lists the git worktrees agent made for the repository
	// (/worktrees); it runs git, so it is called outside Update. nil says
	// there are none to list.
	Worktrees func(context.Context) string
	// Turns starts the turns; nil runs them with a runner of Mentions
	// alone (no session store), as tests do.
	Turns *turn.Runner
	// Rewind takes the session back to a prompt's checkpoint (/rewind,
	// Esc Esc on an empty input) and undoes the last prompt's changes
	// (/undo); nil: the run keeps no sessions, and there is nothing to
	// rewind.
	Rewind Rewinder
	// StatusLine runs the person's status line command (Claude Code's
	// statusLine setting) at the start and after each change of the
	// session's state it is given (at most every 300 ms), and its line
	// is shown under the status bar, StatusLinePadding columns in; nil:
	// none.
	StatusLine        StatusLineFunc
	StatusLinePadding int
	// Shell runs a command the person typed after "!" (Claude Code's bash
	// mode); nil: "!" text is sent as a prompt.
	Shell ShellFunc
	// Shells are the session's background processes: their count in the
	// status line, /shells, and Ctrl+B, which sends a running command to
	// the background; nil (an interface holding no value) when the session
	// keeps none.
	Shells Shells
	// Prefs keeps the choices of /theme and /vim and the background each
	// terminal answered, across runs; nil remembers nothing.
	Prefs *prefs.File
	// Theme is the theme the config file names ("" names none: the one
	// remembered in Prefs, else auto); Vim whether the input takes vim
	// keys (nil: the config file does not say).
	Theme string
	Vim   *bool
	// Notify says how and when the terminal is told that a turn ended or
	// a question waits while the person looks elsewhere.
	Notify NotifyConfig
}

// NotifyConfig is how the interface tells the terminal (and through it the
// desktop) that it waits for the person.
type NotifyConfig struct {
	// Method is "auto", "osc9", "osc777", "bell" or "off" ("" is auto).
	Method string
	// After is the length of a turn after which its end is told although
	// the terminal reported no loss of focus; 0: never.
	After time.Duration
}

// quitWindow is how soon a second Ctrl+C must follow the first to quit when
// the input is not empty.
const quitWindow = 2 * time.Second

// keepsInput reports whether Update leaves the input (its text, cursor,
// size and styles) as it is for msg: a turn's events and the spinner's
// ticks, which arrive many times a second while an answer streams. For
// these View reuses the input's lines (its placeholder alone cost about a
// fifth of a frame); any other message may change the input.
func keepsInput(msg tea.Msg) bool {
	switch msg.(type) {
	case eventsMsg, tickMsg, turnClosedMsg:
		return true
	}
	return false
}

// tickInterval is the spinner's frame time while a turn runs.
const tickInterval = 100 * time.Millisecond

// Messages of the model.
type (
	submitMsg      struct{ text string }
	turnStartedMsg struct {
		events <-chan loop.Event
	}
	eventsMsg struct {
		ch  <-chan loop.Event
		evs []loop.Event
	}
	turnClosedMsg struct{ ch <-chan loop.Event }
	approvalMsg   struct{ req approvalRequest }
	noticeMsg     struct{ text string }
	mcpLoginMsg   struct{ text string }
	worktreesMsg  struct{ text string }
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
	storeErrMsg struct{ err error }
	// gitStatusMsg is `git status --short` after a turn that ran bash.
	gitStatusMsg struct{ out string }
)

// Model is the one top-level Bubble Tea model of the interface.
type Model struct {
	cfg   Config
	st    *styles
	keys  keyMap
	help  help.Model
	input textarea.Model
	vim   *vim // the input's vim keys; nil when off
	chat  *chatList
	bar   *status
	loop  *loop.Loop
	// images are the images attached to prompts (a pasted path, Ctrl+V),
	// by tag; a prompt carries those whose tag it holds.
	images []pastedImage

	cited     []providers.Citation // pages the running turn's answer cited, for its sources note
	session   *Session             // the conversation being shown and continued
	picker    *sessionPicker       // the session picker, when open
	modelPick *modelPicker         // the model picker, when open
	pending   string               // the initial prompt, held until a session is picked

	prompts []string    // earlier prompts, oldest first
	recall  int         // index into prompts while recalling; len(prompts) when not
	draft   string      // the input as it was before recalling
	queue   promptQueue // prompts sent while a turn runs, sent when it ends
	// queueNote is the note that queued prompts wait (queueKept), while
	// it is true: the queue changing takes it away (keepQueueNote).
	queueNote item
	todos     todoPin // the session's todo list, pinned while unfinished

	shells shellsState // the session's background processes as last read
	// personShells counts the "!" commands run, for their blocks' ids.
	personShells int
	// sl is the person's status line (Config.StatusLine) and its runs.
	sl         statusLineState
	shellsView *shellsDialog // the /shells dialog, when open
	rewind     *rewindDialog // the /rewind dialog, when open
	escArmed   time.Time     // when Esc on an empty, idle input armed Esc Esc

	mentionQuery string   // the "@" word whose completions are shown
	mentionHints []string // its completions, best first

	running     bool
	compacting  bool // the running "turn" is a /compact
	ranCommands bool // the running turn ran a command (its changes are not undoable)
	turn        int  // counts turns; ticks of an earlier turn are dropped
	events      <-chan loop.Event
	cancel      context.CancelFunc
	started     time.Time
	current     *assistantItem
	blocks      map[string]*toolBlock
	order       []*toolBlock // tool blocks in order, for selection
	selected    int          // index into order; -1 when none
	// retryNote is the one note of the provider's retries of the current
	// request, updated by each; retryDiscarded that a retry voided text.
	retryNote      *noteItem
	retryDiscarded bool
	// notifier tells the desktop, through the terminal, that a turn
	// ended or a question waits while the terminal has no focus.
	notifier  notifier
	approving *pendingApproval // the question waiting for the person, with its menu
	frame     int              // the spinner's frame: tickIntervals since started
	// spun is when the spinner was last brought up to date (Unix
	// nanoseconds), by a tick or by a batch of events; the tick command
	// reads it from its own goroutine (see tick).
	spun atomic.Int64
	// inputView caches the input's value and its lines as View lays them
	// out; Update drops it on every message but those that never touch
	// the input (see keepsInput).
	inputView struct {
		ok    bool
		value string
		lines []string
	}

	// now is the model's clock (time.Now; tests set their own). lastKey is
	// when a key last went to the input: an approval takes keys only after
	// approvalQuiet without one.
	now     func() time.Time
	lastKey time.Time

	width, height int
	quitArmed     time.Time
	fullHelp      bool

	cost costMeter // the session's tokens and cost

	theme themeState // the theme in force and the terminal's background
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
	// The terminal's own cursor, placed by View, instead of one drawn in
	// the text: a drawn cursor blinks by redrawing the screen twice a
	// second, the terminal's blinks for free.
	in.SetVirtualCursor(false)
	in.Focus()
	m := &Model{
		cfg: cfg, st: st, keys: newKeyMap(), help: help.New(), input: in,
		chat: newChatList(), loop: l, blocks: map[string]*toolBlock{}, selected: -1,
		session: cfg.Session, now: time.Now, queue: promptQueue{st: st}, todos: todoPin{st: st},
	}
	m.notifier = newNotifier(cfg.Notify, os.Getenv)
	m.sl.began = time.Now()
	m.bar = newStatus(st, cfg.Model, cfg.Dir, sessionLabel(cfg.Session), cfg.ContextWindow)
	m.bar.warning = cfg.Warning
	m.keys.shells = cfg.Shells != nil
	// A prefs file that cannot be read is said once, by initTheme, which
	// reads it too.
	vimOn, _ := vimSetting(cfg)
	m.setVim(vimOn)
	if cfg.PermissionMode == "ask" || cfg.PermissionMode == "auto" || cfg.PermissionMode == "plan" {
		m.bar.mode = cfg.PermissionMode
	}
	m.cost.price = cfg.Price
	m.resetCost(cfg.Session)
	m.todos.set(cfg.Session.Todos)
	m.showHistory(cfg.Session.Conv.Messages())
	m.initTheme()
	return m, nil
}

// Init asks for the background colour (when the theme follows it and it is
// not remembered), listens for approval questions and sends the initial
// prompt.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.themeInit()}
	if f := m.cfg.AfterFirstFrame; f != nil {
		// Bubble Tea writes the first frame once its view is ready; this
		// comes after it (a one-off timer at start, none at idle).
		cmds = append(cmds, tea.Tick(firstFrameDelay, func(time.Time) tea.Msg { f(); return nil }))
	}
	if m.cfg.Approver != nil {
		cmds = append(cmds, waitApproval(m.cfg.Approver))
	}
	if m.cfg.Notices != nil {
		cmds = append(cmds, waitNotice(m.cfg.Notices))
	}
	if m.cfg.Shells != nil {
		cmds = append(cmds, waitShells(m.cfg.Shells))
	}
	cmds = append(cmds, m.refreshStatusLine())
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

// Update handles one message: it sends each family of messages to its
// handler (see model_update.go) and everything else to the input.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if !keepsInput(msg) {
		m.inputView.ok = false
	}
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
	case tea.BackgroundColorMsg, bgTimeoutMsg, themeLoadedMsg, themesListedMsg, prefsErrMsg:
		return m, m.onTheme(msg)
	case tea.KeyPressMsg:
		cmd := m.handleKey(msg)
		m.syncApproval()
		return m, tea.Batch(cmd, m.refreshMentions())
	case tea.PasteMsg:
		return m, m.paste(msg)
	case imageReadMsg:
		return m, m.imageRead(msg)
	case clipboardTextMsg:
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg.key)
		return m, cmd
	case approvalArmMsg:
		m.syncApproval()
	case modelsListedMsg:
		m.modelsListed(msg)
	case mentionHintsMsg:
		if msg.query == m.mentionQuery {
			m.mentionHints = msg.paths
		}
	case tea.MouseWheelMsg:
		m.wheel(msg.Button)
	case submitMsg:
		return m, m.submit(msg.text)
	case turnStartedMsg:
		return m, m.turnStarted(msg)
	case eventsMsg:
		return m, m.eventsArrived(msg)
	case turnClosedMsg:
		m.turnClosed(msg)
	case tickMsg:
		return m, m.ticked(msg)
	case modelSwitchedMsg:
		m.modelSwitched(msg)
		return m, m.refreshStatusLine()
	case sessionsListedMsg:
		m.sessionsListed(msg)
	case sessionOpenedMsg:
		m.sessionOpened(msg)
		return m, tea.Batch(m.sendPending(), m.refreshStatusLine())
	case memorySavedMsg, memoryEditMsg, memoryEditedMsg:
		return m, m.onMemory(msg)
	case gitStatusMsg, storeErrMsg:
		m.reported(msg)
	case checkpointsMsg, rewindPreviewMsg, rewoundMsg, undoneMsg, escExpiredMsg:
		m.onRewind(msg)
	case quitExpiredMsg:
		m.quitExpired(msg)
	case approvalMsg:
		return m, tea.Batch(m.askApproval(msg.req), m.notifyQuestion(msg.req))
	case questionWaitedMsg:
		return m, m.questionWaited(msg)
	case tea.FocusMsg:
		m.notifier.focus = focusIn
	case tea.BlurMsg:
		m.notifier.focus = focusOut
	case noticeMsg:
		m.chat.append(newNoteItem(m.st, msg.text))
		return m, waitNotice(m.cfg.Notices)
	case shellDoneMsg:
		m.shellDone(msg)
	case statusLineMsg:
		return m, m.onStatusLine(msg)
	case statusLineDueMsg:
		return m, m.statusLineDue()
	case vimSavedMsg:
		m.vimSaved(msg)
	case mcpLoginMsg:
		m.chat.append(newNoteItem(m.st, msg.text))
		m.chat.bottom()
	case shellsChangedMsg, shellsReadMsg, shellsTickMsg, shellStoppedMsg, backgroundSentMsg:
		return m, m.onShells(msg)
	case worktreesMsg:
		m.chat.append(newNoteItem(m.st, msg.text))
		m.chat.bottom()
	default:
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		return m, cmd
	}
	return m, nil
}
