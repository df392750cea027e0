package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/tools"
)

// ShellFunc runs a command the person typed after "!" (Claude Code's bash
// mode): in the sandbox, under the deny rules, its output joining the
// conversation with the next prompt. It returns the command's result as
// bash gives it; an error when it could not run at all. It returns when
// ctx is cancelled.
type ShellFunc func(ctx context.Context, command string) (tools.Result, error)

// shellDoneMsg carries the end of a "!" command.
type shellDoneMsg struct {
	id  string
	res tools.Result
	err error
}

// shellCommand runs text ("!command") with Config.Shell, shown as a bash
// call of the person's; between turns only.
func (m *Model) shellCommand(text string) tea.Cmd {
	command := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(text), "!"))
	switch {
	case command == "":
		return nil
	case m.cfg.Shell == nil:
		m.noteAfterText("! runs a command only in a session that can run commands.")
		return nil
	case m.running:
		m.noteAfterText("! runs a command between turns: wait for this turn to end, or press Esc to stop it.")
		return nil
	}
	m.remember(text)
	m.personShells++
	id := fmt.Sprintf("person-shell-%d", m.personShells)
	args, _ := json.Marshal(map[string]string{"command": command})
	m.handleEvent(loop.ToolCallStarted{ID: id, Name: "bash", Arguments: string(args), Effects: tools.RunsCommands,
		Summary: tools.Summary{Title: "! " + firstLine(command), Full: command}})
	m.chat.bottom()
	run := m.cfg.Shell
	return func() tea.Msg {
		res, err := run(context.Background(), command)
		return shellDoneMsg{id: id, res: res, err: err}
	}
}

// shellDone shows a "!" command's output in its block.
func (m *Model) shellDone(msg shellDoneMsg) {
	res := msg.res
	if msg.err != nil {
		res = tools.Result{Content: msg.err.Error(), IsError: true}
	}
	m.handleEvent(loop.ToolCallFinished{ID: msg.id, Name: "bash", Content: res.Content, IsError: res.IsError, Meta: res.Meta, Effects: tools.RunsCommands})
	m.chat.bottom()
}

// firstLine is s up to its first line break.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
