package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/agent-dev/agent/tools"
)

// Shells is what the interface needs of the session's background processes
// (bash's run_in_background, and the commands the person sends to the
// background with Ctrl+B). It must be safe for concurrent use: the model
// calls it only from commands, never from Update.
type Shells interface {
	// List returns every process the session knows, running or ended, in
	// the order they started.
	List() []tools.Process
	// Tail returns the last n lines of process id's output, for people
	// (it does not move the model's read offset); ok is false when there
	// is no such process. It reads the process's output file.
	Tail(id string, n int) (text string, ok bool)
	// Stop stops process id (SIGTERM, then SIGKILL after a grace period)
	// and returns once it has ended, or once ctx is cancelled; ok is false
	// when there is no such process. Stopping one that has ended does
	// nothing and returns its status.
	Stop(ctx context.Context, id string) (p tools.Process, ok bool)
	// SendToBackground sends every command the session runs in the
	// foreground to the background (the running bash call returns to the
	// model at once, naming the new process) and returns how many it sent.
	// It does not block.
	SendToBackground() int
	// Changes is signalled whenever a process starts, exits or is
	// stopped; at most one signal waits. The interface is its one reader.
	Changes() <-chan struct{}
}

// How many lines of a process's output /shells shows: the last few of each
// in the list, the last viewTailLines (or a screenful) of the one viewed.
const (
	listTailLines = 2
	viewTailLines = 40
)

// stopTimeout bounds a stop the person asked for: Stop sends SIGKILL after
// its grace period, so only a process stuck in the kernel takes this long.
const stopTimeout = 30 * time.Second

// shellsRefresh is how often the open /shells dialog reads the output
// again: the processes say when they start and end, not when they write.
const shellsRefresh = time.Second

// Messages of the background processes.
type (
	// shellsChangedMsg is the list read after Changes fired.
	shellsChangedMsg struct{ procs []tools.Process }
	// shellsReadMsg is the list and the last lines of every process's
	// output, read for the open /shells dialog.
	shellsReadMsg struct {
		procs []tools.Process
		tails map[string]string
	}
	// shellsTickMsg asks the /shells dialog opened as number open to read
	// the output again.
	shellsTickMsg struct{ open int }
	// shellStoppedMsg is the outcome of a stop the person asked for.
	shellStoppedMsg struct {
		id   string
		proc tools.Process
		ok   bool
	}
	// backgroundSentMsg says how many foreground commands Ctrl+B sent to
	// the background.
	backgroundSentMsg struct{ n int }
)

// shellsState is what the interface knows of the session's background
// processes between two reads.
type shellsState struct {
	procs    []tools.Process // as last listed
	stopping map[string]bool // stops the person asked for that have not returned
	noted    map[string]bool // processes whose end the pane has told
	opened   int             // counts the /shells dialogs opened, for their ticks
}

// waitShells waits for the next change of the background processes and
// lists them; Update issues it again after each.
func waitShells(s Shells) tea.Cmd {
	return func() tea.Msg {
		<-s.Changes()
		return shellsChangedMsg{s.List()}
	}
}

// readShells lists the processes with the last lines of their output:
// viewed's (when not "") the last n, the others' the last listTailLines.
func readShells(s Shells, viewed string, n int) tea.Cmd {
	return func() tea.Msg {
		procs := s.List()
		tails := make(map[string]string, len(procs))
		for _, p := range procs {
			k := listTailLines
			if p.ID == viewed {
				k = n
			}
			tails[p.ID], _ = s.Tail(p.ID, k)
		}
		return shellsReadMsg{procs, tails}
	}
}

// shellsChanged takes the list read after a change, and waits for the
// next change.
func (m *Model) shellsChanged(msg shellsChangedMsg) tea.Cmd {
	m.setShells(msg.procs)
	return tea.Batch(waitShells(m.cfg.Shells), m.readForDialog())
}

// setShells takes a new list of the processes: the status line's count,
// and a note for each process that ended on its own since the last list
// (kill_shell's call and the person's stop say so themselves).
func (m *Model) setShells(procs []tools.Process) {
	m.shells.procs = procs
	running := 0
	for _, p := range procs {
		if p.Running {
			running++
			continue
		}
		if p.Stopped || m.shells.noted[p.ID] {
			continue
		}
		if m.shells.noted == nil {
			m.shells.noted = map[string]bool{}
		}
		m.shells.noted[p.ID] = true
		// Appended as the notices are: splitting an answer that streams
		// (noteAfterText) could cut it inside a code block.
		m.chat.append(newNoteItem(m.st, fmt.Sprintf("Background shell %s %s: %s", p.ID, shellEnding(p), oneLine(p.Command))))
	}
	m.bar.shells = running
}

// shellEnding says how a process that is no longer running ended.
func shellEnding(p tools.Process) string {
	switch {
	case p.Stopped:
		return "was stopped"
	case p.ExitCode < 0:
		return "was killed by a signal"
	}
	return fmt.Sprintf("exited (code %d)", p.ExitCode)
}

// findShell returns process id as last listed.
func (m *Model) findShell(id string) (tools.Process, bool) {
	for _, p := range m.shells.procs {
		if p.ID == id {
			return p, true
		}
	}
	return tools.Process{}, false
}

// shellsCommand is /shells: without an argument the dialog that lists the
// processes; with an id the dialog showing that one's output; with "stop
// ID" (or "kill ID") a stop.
func (m *Model) shellsCommand(arg string) tea.Cmd {
	if m.cfg.Shells == nil {
		return m.showNote("This run keeps no background shells.")
	}
	verb, id, _ := strings.Cut(arg, " ")
	switch verb {
	case "stop", "kill":
		return m.stopShell(strings.TrimSpace(id))
	case "":
		if len(m.shells.procs) == 0 {
			return m.showNote("No background shells. A command runs in the background when the model starts it so " +
				"(run_in_background), or when you press Ctrl+B while it runs.")
		}
		return m.openShells("")
	}
	if _, ok := m.findShell(arg); !ok {
		m.chat.append(newErrorItem(m.st, "No background shell "+arg+"; /shells lists them."))
		return nil
	}
	return m.openShells(arg)
}

// stopShell stops process id in a command (Stop waits for the end) and
// says how it went in a note.
func (m *Model) stopShell(id string) tea.Cmd {
	if id == "" {
		m.chat.append(newErrorItem(m.st, "Say which shell: /shells stop ID."))
		return nil
	}
	if p, ok := m.findShell(id); ok && !p.Running {
		return m.showNote(fmt.Sprintf("Background shell %s has already ended: it %s.", id, shellEnding(p)))
	}
	if m.shells.stopping[id] {
		return nil
	}
	if m.shells.stopping == nil {
		m.shells.stopping = map[string]bool{}
	}
	m.shells.stopping[id] = true
	s := m.cfg.Shells
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
		defer cancel()
		p, ok := s.Stop(ctx, id)
		return shellStoppedMsg{id: id, proc: p, ok: ok}
	}
}

// shellStopped tells how a stop went, and reads the list again for the
// open dialog.
func (m *Model) shellStopped(msg shellStoppedMsg) tea.Cmd {
	delete(m.shells.stopping, msg.id)
	p := msg.proc
	switch {
	case !msg.ok:
		m.chat.append(newErrorItem(m.st, "No background shell "+msg.id+"; /shells lists them."))
	case p.Stopped:
		if m.shells.noted == nil {
			m.shells.noted = map[string]bool{}
		}
		m.shells.noted[p.ID] = true
		m.chat.append(newNoteItem(m.st, fmt.Sprintf("Stopped background shell %s: %s", p.ID, oneLine(p.Command))))
	default:
		m.chat.append(newNoteItem(m.st, fmt.Sprintf("Background shell %s had already ended: it %s.", p.ID, shellEnding(p))))
	}
	m.chat.bottom()
	return m.readForDialog()
}

// sendToBackground is Ctrl+B: the commands running in the foreground go
// to the background (their calls' results say so).
func (m *Model) sendToBackground() tea.Cmd {
	s := m.cfg.Shells
	return func() tea.Msg { return backgroundSentMsg{s.SendToBackground()} }
}

// backgroundSent says so when Ctrl+B found no command to send.
func (m *Model) backgroundSent(msg backgroundSentMsg) {
	if msg.n == 0 {
		m.showNote("No command runs in the foreground: Ctrl+B sends a running bash command to the background.")
	}
}

// shellsKey reports whether Ctrl+B goes to the background processes: while
// a turn runs, or on an empty input; otherwise it is the input's (the
// cursor back one character, as in Emacs).
func (m *Model) shellsKey() bool {
	return m.cfg.Shells != nil && (m.running || m.input.Value() == "")
}

// onShells handles the messages of the background processes.
func (m *Model) onShells(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case shellsChangedMsg:
		return m.shellsChanged(msg)
	case shellsReadMsg:
		m.shellsRead(msg)
	case shellsTickMsg:
		return m.shellsTicked(msg)
	case shellStoppedMsg:
		return m.shellStopped(msg)
	case backgroundSentMsg:
		m.backgroundSent(msg)
	}
	return nil
}
