package background

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Notes returns what the model of conversation session has not heard of
// its processes' ends (those its calls started): a line for each process
// that ended since (and that it neither stopped with
// kill_shell nor saw end through bash_output), with its exit code and how
// much of its output is unread; "" when there is nothing new. Each end is
// told once: a second call returns "" until another process ends.
func (m *Manager) Notes(session string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var b strings.Builder
	for _, p := range m.procs {
		if p.noted || !p.exited() || p.session != session {
			continue
		}
		p.noted = true
		st := p.status()
		fmt.Fprintf(&b, "Background process %s (`%s`) %s", p.id, shortCommand(p.command), ending(st))
		if st.Unread > 0 {
			fmt.Fprintf(&b, "; %s of its output is unread (bash_output %s)", size(st.Unread), p.id)
		}
		b.WriteString(".")
		if p.guard != "" {
			b.WriteString(" " + p.guard)
		}
		b.WriteByte('\n')
	}
	if b.Len() == 0 {
		return ""
	}
	return "<background-processes>\n" + b.String() + "</background-processes>"
}

// Restate returns the list of conversation session's processes still
// running, for the start of its compacted conversation, so that the model
// still knows their ids; "" when none runs.
func (m *Manager) Restate(session string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var b strings.Builder
	for _, p := range m.procs {
		if p.exited() || p.session != session {
			continue
		}
		fmt.Fprintf(&b, "- %s (pid %d, started %s): %s\n", p.id, p.pid, p.started.Format("15:04:05"), shortCommand(p.command))
	}
	if b.Len() == 0 {
		return ""
	}
	return "Background processes still running (read them with bash_output, stop them with kill_shell):\n" + b.String()
}

// ending says how a process that is no longer running ended.
func ending(st Status) string {
	switch {
	case st.Stopped:
		return "was stopped"
	case st.ExitCode < 0:
		return "was killed by a signal"
	default:
		return fmt.Sprintf("exited with exit code %d", st.ExitCode)
	}
}

// shortCommand is a command's first line, at most 120 bytes, for lists.
func shortCommand(c string) string {
	first, _, more := strings.Cut(strings.TrimSpace(c), "\n")
	if len(first) > 120 {
		cut := 120
		for cut > 0 && !utf8.RuneStart(first[cut]) {
			cut--
		}
		first, more = first[:cut], true
	}
	if more {
		first += " …"
	}
	return first
}

// size writes n bytes for people: "812 bytes", "2.1 KiB", "3.5 MiB".
func size(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/1024)
	default:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
}

// lastLines returns the last n lines of b (a partial last line counts),
// as valid UTF-8.
func lastLines(b []byte, n int) string {
	b = bytes.TrimRight(b, "\n")
	for i, seen := len(b)-1, 0; i >= 0; i-- {
		if b[i] == '\n' {
			if seen++; seen == n {
				b = b[i+1:]
				break
			}
		}
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}
