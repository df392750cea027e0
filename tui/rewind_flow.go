package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/agent-dev/agent/mention"
	"github.com/agent-dev/agent/sessions"
)

// escWindow is how soon a second Esc must follow the first, on an empty
// input with no turn running, to open the rewind dialog.
const escWindow = 2 * time.Second

// Messages of a rewind.
type (
	// checkpointsMsg is the list of session's checkpoints, for the dialog.
	checkpointsMsg struct {
		session string
		items   []sessions.Checkpoint
		err     error
	}
	rewindPreviewMsg struct {
		res Rewound
		err error
	}
	rewoundMsg struct {
		scope RewindScope
		res   Rewound
		err   error
	}
	undoneMsg struct {
		res     Rewound
		journal *sessions.UndoResult
		err     error
	}
	escExpiredMsg struct{ armed time.Time }
)

// onRewind handles the messages of a rewind.
func (m *Model) onRewind(msg tea.Msg) {
	switch msg := msg.(type) {
	case checkpointsMsg:
		m.checkpointsListed(msg)
	case rewindPreviewMsg:
		m.previewArrived(msg)
	case rewoundMsg:
		m.rewound(msg)
	case undoneMsg:
		m.undone(msg)
	case escExpiredMsg:
		if msg.armed.Equal(m.escArmed) {
			m.escArmed = time.Time{}
		}
	}
}

// escIdle is Esc on an empty input with no turn running: the first arms,
// a second within escWindow opens the rewind dialog.
func (m *Model) escIdle() tea.Cmd {
	if m.cfg.Rewind == nil {
		return nil
	}
	now := m.now()
	if !m.escArmed.IsZero() && now.Sub(m.escArmed) < escWindow {
		m.escArmed = time.Time{}
		return m.openRewind()
	}
	m.escArmed = now
	return tea.Tick(escWindow, func(time.Time) tea.Msg { return escExpiredMsg{now} })
}

// openRewind opens the rewind dialog on the session's prompts, read in a
// command.
func (m *Model) openRewind() tea.Cmd {
	switch {
	case m.cfg.Rewind == nil:
		return m.showNote("Sessions are not saved in this run, so there is nothing to rewind.")
	case m.running:
		return m.showNote("Cancel the running turn (Esc) before rewinding.")
	}
	m.rewind = &rewindDialog{st: m.st, now: m.now(), session: m.session.ID}
	rw, id := m.cfg.Rewind, m.session.ID
	return func() tea.Msg {
		items, err := rw.Checkpoints(context.Background(), id)
		return checkpointsMsg{session: id, items: items, err: err}
	}
}

// checkpointsListed fills the dialog that asked, the cursor on the newest
// prompt.
func (m *Model) checkpointsListed(msg checkpointsMsg) {
	d := m.rewind
	if d == nil || d.session != msg.session || d.items != nil {
		return
	}
	if msg.err != nil {
		d.err = msg.err.Error()
	}
	d.items = msg.items
	if d.items == nil {
		d.items = []sessions.Checkpoint{}
	}
	d.cursor = len(d.items) - 1
}

// closeRewind closes the dialog; what is under way goes on, and a rewind's
// outcome is still shown.
func (m *Model) closeRewind() { m.rewind = nil }

// rewindKey handles keys while the rewind dialog is open.
func (m *Model) rewindKey(msg tea.KeyPressMsg) tea.Cmd {
	d := m.rewind
	switch msg.String() {
	case "up", "ctrl+p":
		d.move(-1)
	case "down", "ctrl+n":
		d.move(+1)
	case "enter":
		return m.rewindChoose()
	case "esc", "left":
		m.rewindBack()
	case "ctrl+c", "q":
		if d.stage != rewindBusy {
			m.closeRewind()
		}
	}
	return nil
}

// rewindChoose is Enter: the prompt in the list, an entry of a menu.
func (m *Model) rewindChoose() tea.Cmd {
	d := m.rewind
	switch d.stage {
	case rewindList:
		if _, ok := d.chosen(); ok {
			d.stage, d.choice = rewindScopes, 0
		}
	case rewindScopes, rewindPreview:
		o := d.options()[d.choice]
		switch {
		case o.cancel:
			m.rewind = nil
		case d.stage == rewindScopes && o.scope.code():
			d.scope = o.scope
			return m.startPreview()
		default:
			d.scope = o.scope
			return m.startRewind(o.scope, o.force)
		}
	}
	return nil
}

// rewindBack is Esc: back a stage, closed from the list; while a preview
// or a summary is read, it is abandoned.
func (m *Model) rewindBack() {
	d := m.rewind
	switch d.stage {
	case rewindList:
		m.rewind = nil
	case rewindScopes:
		d.stage = rewindList
	case rewindPreview:
		d.stage, d.plan, d.choice = rewindScopes, nil, int(d.scope)
	case rewindBusy:
		if d.cancel != nil && !d.cancelled {
			d.cancel()
			d.cancelled, d.busy = true, "Cancelling…"
		}
	}
}

// wait shows what the dialog waits for, a preview or a rewind; cancel,
// when not nil, abandons it on Esc.
func (d *rewindDialog) wait(what string, preview bool, cancel context.CancelFunc) {
	d.stage, d.busy, d.previewing, d.cancel, d.cancelled = rewindBusy, what, preview, cancel, false
}

// startPreview asks what a restore of the files to the chosen prompt
// would change.
func (m *Model) startPreview() tea.Cmd {
	d := m.rewind
	cp, _ := d.chosen()
	ctx, cancel := context.WithCancel(context.Background())
	d.wait("Reading the files…", true, cancel)
	rw, sess := m.cfg.Rewind, m.session
	return func() tea.Msg {
		res, err := rw.Rewind(ctx, sess, RewindRequest{To: cp.N, Scope: RewindCode, Preview: true})
		return rewindPreviewMsg{res: res, err: err}
	}
}

// previewArrived shows the preview in the dialog that waits for it, or,
// when Esc abandoned it, goes back to the menu of scopes.
func (m *Model) previewArrived(msg rewindPreviewMsg) {
	d := m.rewind
	if d == nil || d.stage != rewindBusy || !d.previewing {
		return
	}
	d.cancel()
	switch {
	case d.cancelled || errors.Is(msg.err, context.Canceled):
		d.stage, d.choice = rewindScopes, int(d.scope)
	case msg.err != nil:
		m.rewind = nil
		m.chat.append(newErrorItem(m.st, "Rewind: "+msg.err.Error()))
		m.chat.bottom()
	default:
		d.plan, d.stage, d.choice = &msg.res, rewindPreview, 0
	}
}

// startRewind rewinds to the chosen prompt. A summary (a request to the
// model) can be abandoned; a restore cannot.
func (m *Model) startRewind(scope RewindScope, force bool) tea.Cmd {
	d := m.rewind
	cp, _ := d.chosen()
	ctx, cancel := context.Background(), context.CancelFunc(nil)
	what := "Restoring…"
	if scope == RewindSummarize {
		ctx, cancel = context.WithCancel(ctx)
		what = fmt.Sprintf("Summarizing the conversation from prompt %d on…", cp.N)
	}
	d.wait(what, false, cancel)
	rw, sess := m.cfg.Rewind, m.session
	return func() tea.Msg {
		res, err := rw.Rewind(ctx, sess, RewindRequest{To: cp.N, Scope: scope, Force: force})
		if res.Prompt == 0 {
			res.Prompt = cp.N
		}
		return rewoundMsg{scope: scope, res: res, err: err}
	}
}

// rewound closes the dialog and shows what the rewind did: the fork's
// conversation, the prompt's text back in the input, and notes of the
// files restored and the branch kept.
func (m *Model) rewound(msg rewoundMsg) {
	if d := m.rewind; d != nil {
		if d.cancel != nil {
			d.cancel()
		}
		m.rewind = nil
	}
	res := msg.res
	switch {
	case errors.Is(msg.err, context.Canceled):
		m.chat.append(newNoteItem(m.st, "Cancelled: nothing was rewound."))
	case msg.err != nil:
		if msg.scope.code() && len(res.Restored) > 0 {
			m.chat.append(newNoteItem(m.st, restoredNote(res, false)))
		}
		m.chat.append(newErrorItem(m.st, "Rewind: "+msg.err.Error()))
	case res.Session != nil && m.running:
		// Not reachable from the dialog, which opens only between turns.
		m.chat.append(newNoteItem(m.st, "A turn is running: the rewound conversation is session "+res.Session.ID+"."))
	default:
		var notes []string
		if msg.scope.code() {
			notes = append(notes, restoredNote(res, false))
		}
		if msg.scope.conversation() {
			notes = append(notes, forkNote(msg.scope, res))
		}
		if res.Session == nil || !m.switchSession(res.Session, notes...) {
			for _, n := range notes {
				m.chat.append(newNoteItem(m.st, n))
			}
		}
		if msg.scope == RewindBoth || msg.scope == RewindConversation {
			text, _ := mention.Strip(res.Text)
			m.input.SetValue(text)
			m.input.CursorEnd()
		}
	}
	m.chat.bottom()
}

// forkNote says where the conversation went on and that the one left is
// kept.
func forkNote(scope RewindScope, res Rewound) string {
	what := fmt.Sprintf("Rewound the conversation to before prompt %d; its text is back in the input.", res.Prompt)
	if scope == RewindSummarize {
		what = fmt.Sprintf("Summarized the conversation from prompt %d on.", res.Prompt)
	}
	if res.Left == "" {
		return what
	}
	return what + " The conversation as it was is kept as session " + res.Left + " (/sessions opens it)."
}

// restoredNote says what a rewind of the code (or an undo) restored and
// what it left alone.
func restoredNote(res Rewound, undo bool) string {
	var b strings.Builder
	switch {
	case undo:
		fmt.Fprintf(&b, "Undid prompt %d: the files are as they were before it.", res.Prompt)
	case len(res.Restored) == 0 && len(res.Kept) == 0:
		fmt.Fprintf(&b, "The files were as they were before prompt %d: nothing to restore.", res.Prompt)
	default:
		fmt.Fprintf(&b, "Restored the files to before prompt %d.", res.Prompt)
	}
	restored := map[string]bool{}
	for _, c := range res.Restored {
		restored[c.Path] = true
		fmt.Fprintf(&b, "\n  %s %s", restoredVerb(c.Action), c.Path)
	}
	var kept []string
	for _, c := range res.Kept {
		if !restored[c.Path] {
			kept = append(kept, c.Path)
		}
	}
	if len(kept) > 0 {
		b.WriteString("\nLeft as they are, changed outside the agent since: " + strings.Join(kept, ", ") + " (/rewind restores them too).")
	}
	if len(res.Protected) > 0 {
		paths := make([]string, len(res.Protected))
		for i, c := range res.Protected {
			paths[i] = c.Path
		}
		b.WriteString("\nNever written, protected: " + strings.Join(paths, ", ") + ".")
	}
	return b.String()
}

// restoredVerb says what restoring did to a file.
func restoredVerb(action string) string {
	switch action {
	case "create":
		return "recreated"
	case "delete":
		return "removed"
	}
	return "restored"
}

// undone shows what /undo did.
func (m *Model) undone(msg undoneMsg) {
	switch {
	case errors.Is(msg.err, sessions.ErrNothingToUndo):
		m.chat.append(newNoteItem(m.st, "Nothing to undo: no prompt of this session changed files that undo has not restored yet."))
	case msg.err != nil:
		m.chat.append(newErrorItem(m.st, "Undo: "+msg.err.Error()))
	case msg.journal != nil:
		var b strings.Builder
		fmt.Fprintf(&b, "Undid prompt %d (its edits; commands run by bash are not tracked in this session):", msg.journal.Prompt)
		for _, f := range msg.journal.Restored {
			fmt.Fprintf(&b, "\n  %s %s", f.Action, f.Path)
		}
		m.chat.append(newNoteItem(m.st, b.String()))
	default:
		m.chat.append(newNoteItem(m.st, restoredNote(msg.res, true)))
	}
	m.chat.bottom()
}
