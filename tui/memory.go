package tui

import (
	"os"
	"os/exec"

	tea "charm.land/bubbletea/v2"

	"github.com/agent-dev/agent/turn"
)

// Messages of the memory gestures: a "#" note saved, MEMORY.md ready to
// edit, the editor closed.
type (
	memorySavedMsg struct {
		path string
		err  error
	}
	memoryEditMsg struct {
		path string
		err  error
	}
	memoryEditedMsg struct {
		path string
		err  error
	}
)

// rememberNote saves a prompt that is a "#" note (turn.MemoryNote) to
// MEMORY.md instead of sending it, and reports whether it was one. Without
// Config.Remember every prompt is sent.
func (m *Model) rememberNote(text string) (tea.Cmd, bool) {
	note, ok := turn.MemoryNote(text)
	if !ok || m.cfg.Remember == nil {
		return nil, false
	}
	m.remember(text)
	remember := m.cfg.Remember
	return func() tea.Msg {
		path, err := remember(note)
		return memorySavedMsg{path, err}
	}, true
}

// editMemory is /memory: MEMORY.md, created when missing, opens in the
// person's editor ($VISUAL, else $EDITOR, else vi), run through the shell
// as git runs its editor, so "code --wait" works.
func (m *Model) editMemory() tea.Cmd {
	if m.cfg.MemoryFile == nil {
		m.chat.append(newNoteItem(m.st, "Memory is not kept in this run."))
		return nil
	}
	file := m.cfg.MemoryFile
	return func() tea.Msg {
		path, err := file()
		return memoryEditMsg{path, err}
	}
}

// onMemory handles the memory messages.
func (m *Model) onMemory(msg tea.Msg) tea.Cmd {
	defer m.chat.bottom()
	switch msg := msg.(type) {
	case memorySavedMsg:
		if msg.err != nil {
			m.chat.append(newErrorItem(m.st, "Saving to memory: "+msg.err.Error()))
			return nil
		}
		m.chat.append(newNoteItem(m.st, "Saved to memory ("+msg.path+"); new sessions of this project start with it."))
	case memoryEditMsg:
		if msg.err != nil {
			m.chat.append(newErrorItem(m.st, "Opening MEMORY.md: "+msg.err.Error()))
			return nil
		}
		editor := os.Getenv("VISUAL")
		if editor == "" {
			editor = os.Getenv("EDITOR")
		}
		if editor == "" {
			editor = "vi"
		}
		c := exec.Command("/bin/sh", "-c", editor+` "$@"`, editor, msg.path)
		path := msg.path
		return tea.ExecProcess(c, func(err error) tea.Msg { return memoryEditedMsg{path, err} })
	case memoryEditedMsg:
		if msg.err != nil {
			m.chat.append(newErrorItem(m.st, "The editor failed: "+msg.err.Error()))
			return nil
		}
		m.chat.append(newNoteItem(m.st, "MEMORY.md saved ("+msg.path+"); new sessions of this project start with it."))
	}
	return nil
}
