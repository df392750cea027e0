package tui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/agent-dev/agent/tools"
)

// shellsDialog is /shells: the session's background processes, each with
// its state, how long it ran, its command and the last lines of its
// output. ↑/↓ choose, Enter shows the chosen one's output (a screenful of
// its last lines), k stops it, Esc goes back to the list or closes. It
// replaces the conversation pane while it is open, and reads the output
// again every shellsRefresh.
type shellsDialog struct {
	st      *styles
	open    int // its number (shellsState.opened), for its ticks
	procs   []tools.Process
	tails   map[string]string // the last lines of each one's output, by id
	cursor  int               // index into procs
	viewing string            // the process whose output is shown; "" shows the list
	now     time.Time         // when procs were read, for the running ones' ages
}

// selectedID is the id of the process the cursor is on, "" when none.
func (d *shellsDialog) selectedID() string {
	if d.cursor < 0 || d.cursor >= len(d.procs) {
		return ""
	}
	return d.procs[d.cursor].ID
}

// move moves the cursor by delta, within the list.
func (d *shellsDialog) move(delta int) {
	if len(d.procs) > 0 {
		d.cursor = min(max(d.cursor+delta, 0), len(d.procs)-1)
	}
}

// update takes a new reading, the cursor staying on its process.
func (d *shellsDialog) update(procs []tools.Process, tails map[string]string, now time.Time) {
	id := d.selectedID()
	d.procs, d.tails, d.now = procs, tails, now
	d.cursor = min(d.cursor, max(len(procs)-1, 0))
	for i, p := range procs {
		if p.ID == id {
			d.cursor = i
		}
	}
}

// shellState is a process's state in a word or two.
func shellState(p tools.Process, stopping bool) string {
	switch {
	case p.Running && stopping:
		return "stopping…"
	case p.Running:
		return "running"
	case p.Stopped:
		return "stopped"
	case p.ExitCode < 0:
		return "killed"
	}
	return "exit " + strconv.Itoa(p.ExitCode)
}

// shellAge is how long p has run (until now) or ran.
func shellAge(p tools.Process, now time.Time) string {
	end := now
	if !p.Running {
		end = p.Ended
	}
	return formatElapsed(max(end.Sub(p.Started), 0))
}

// View renders the dialog in width x height: the list, or the output of
// the process viewed. stopping marks the stops under way.
func (d *shellsDialog) View(width, height int, stopping map[string]bool) string {
	var lines []string
	if d.viewing != "" {
		lines = d.outputLines(height, stopping)
	} else {
		lines = d.listLines(height, stopping)
	}
	for len(lines) < height {
		lines = append(lines, "")
	}
	lines = lines[:height]
	for i, l := range lines {
		lines[i] = cutTo(l, width)
	}
	return strings.Join(lines, "\n")
}

// listLines is the list: a header, then a line for each process and the
// last lines of its output, the cursor's process kept in view.
func (d *shellsDialog) listLines(height int, stopping map[string]bool) []string {
	head := d.st.ToolName.Render("Background shells") + d.st.Dim.Render("  ↑/↓ choose · enter output · k stop · esc close")
	if len(d.procs) == 0 {
		return []string{head, d.st.Dim.Render("No background shells.")}
	}
	var body []string
	start, end := 0, 0 // the cursor's process's lines in body
	for i, p := range d.procs {
		if i == d.cursor {
			start = len(body)
		}
		line := fmt.Sprintf("%-7s  %-9s  %6s  %s", p.ID, shellState(p, stopping[p.ID]), shellAge(p, d.now), oneLine(p.Command))
		if i == d.cursor {
			line = d.st.ToolSelected.Render("▌ " + line)
		} else {
			line = "  " + line
		}
		body = append(body, line)
		tail, _ := outputLines(d.tails[p.ID], 1<<20)
		for _, l := range tail[max(len(tail)-listTailLines, 0):] {
			body = append(body, "      "+d.st.Dim.Render(l))
		}
		if i == d.cursor {
			end = len(body)
		}
	}
	room := max(height-1, 1)
	first := 0
	if end > room {
		first = min(end-room, start)
	}
	return append([]string{head}, body[first:min(first+room, len(body))]...)
}

// outputLines is the viewed process: a header, its command, and the last
// lines of its output that fit.
func (d *shellsDialog) outputLines(height int, stopping map[string]bool) []string {
	var p tools.Process
	found := false
	for _, q := range d.procs {
		if q.ID == d.viewing {
			p, found = q, true
		}
	}
	keys := d.st.Dim.Render("  k stop · esc back")
	if !found {
		return []string{d.st.ToolName.Render(d.viewing) + keys, d.st.Dim.Render("This shell is gone.")}
	}
	what := " · " + shellState(p, stopping[p.ID]) + " · " + shellAge(p, d.now)
	if p.PID > 0 {
		what += " · pid " + strconv.Itoa(p.PID)
	}
	lines := []string{
		d.st.ToolName.Render(p.ID) + d.st.Dim.Render(what) + keys,
		d.st.Dim.Render("$ ") + oneLine(p.Command),
	}
	out, _ := outputLines(d.tails[p.ID], 1<<20)
	if len(out) == 0 {
		return append(lines, d.st.Dim.Render("(no output yet)"))
	}
	room := max(height-len(lines), 1)
	return append(lines, out[max(len(out)-room, 0):]...)
}

// openShells opens the /shells dialog, on the list or (viewed not "") on
// one process's output, and reads the output.
func (m *Model) openShells(viewed string) tea.Cmd {
	m.shells.opened++
	d := &shellsDialog{st: m.st, open: m.shells.opened, procs: m.shells.procs, viewing: viewed, now: m.now()}
	for i, p := range d.procs {
		if p.ID == viewed {
			d.cursor = i
		}
	}
	m.shellsView = d
	return tea.Batch(m.readForDialog(), shellsTick(d.open))
}

// shellsTick asks the dialog opened as number open to read the output
// again in shellsRefresh.
func shellsTick(open int) tea.Cmd {
	return tea.Tick(shellsRefresh, func(time.Time) tea.Msg { return shellsTickMsg{open} })
}

// readForDialog reads the processes and their output for the open dialog;
// nil when none is open.
func (m *Model) readForDialog() tea.Cmd {
	d := m.shellsView
	if d == nil {
		return nil
	}
	return readShells(m.cfg.Shells, d.viewing, max(viewTailLines, m.height))
}

// shellsTicked reads the output again while the dialog that asked is
// open.
func (m *Model) shellsTicked(msg shellsTickMsg) tea.Cmd {
	if m.shellsView == nil || m.shellsView.open != msg.open {
		return nil
	}
	return tea.Batch(m.readForDialog(), shellsTick(msg.open))
}

// shellsRead takes a reading made for the dialog.
func (m *Model) shellsRead(msg shellsReadMsg) {
	m.setShells(msg.procs)
	if m.shellsView != nil {
		m.shellsView.update(msg.procs, msg.tails, m.now())
	}
}

// shellsDialogKey handles keys while the /shells dialog is open.
func (m *Model) shellsDialogKey(msg tea.KeyPressMsg) tea.Cmd {
	d := m.shellsView
	switch msg.String() {
	case "up", "ctrl+p":
		if d.viewing == "" {
			d.move(-1)
		}
	case "down", "ctrl+n":
		if d.viewing == "" {
			d.move(+1)
		}
	case "enter", "right":
		if id := d.selectedID(); d.viewing == "" && id != "" {
			d.viewing = id
			return m.readForDialog()
		}
	case "k":
		id := d.viewing
		if id == "" {
			id = d.selectedID()
		}
		if id != "" {
			return m.stopShell(id)
		}
	case "esc", "left", "backspace":
		if d.viewing != "" {
			d.viewing = ""
			return nil
		}
		m.shellsView = nil
	case "q", "ctrl+c":
		m.shellsView = nil
	}
	return nil
}
