package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/shell/rules"
)

// maxShellNote caps what a person's "!" command adds to the next prompt
// (32 KiB of its output; the rest is cut with a note).
const maxShellNote = 32 << 10

// personShells keeps what the person's "!" commands printed, and notes of
// what the person did to the files outside a turn (/undo), per session,
// until the session's next prompt carries them to the model.
type personShells struct {
	mu      sync.Mutex
	pending map[string][]string // "!" commands' input and output
	notes   map[string][]string // anything else
}

// take returns and forgets session's pending commands and notes, each
// joined.
func (p *personShells) take(session string) (ran, notes string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	ran, notes = strings.Join(p.pending[session], "\n"), strings.Join(p.notes[session], "\n")
	delete(p.pending, session)
	delete(p.notes, session)
	return ran, notes
}

func (p *personShells) add(session, ran string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pending == nil {
		p.pending = map[string][]string{}
	}
	p.pending[session] = append(p.pending[session], ran)
}

func (p *personShells) note(session, note string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.notes == nil {
		p.notes = map[string][]string{}
	}
	p.notes[session] = append(p.notes[session], note)
}

// NoteNextPrompt keeps note for the model: it joins session's next prompt
// (as a "!" command's output does). The interface tells the model so of
// what the person did to the files outside a turn (/undo, a rewind of the
// code alone), which the conversation does not show.
func (s *Session) NoteNextPrompt(session, note string) { s.a.shells.note(session, note) }

// Shell runs a command the person typed after "!" in the interface
// (Claude Code's bash mode) with the session's bash: in the sandbox (the
// read-only one in plan mode), under the deny rules, without a question
// (the person typed it). What it printed joins the session's next prompt,
// in Claude Code's <bash-input> and <bash-stdout> tags. A denied command
// is an error result; an error is returned when no bash can run here.
func (s *Session) Shell(ctx context.Context, command string) (tools.Result, error) {
	a := s.a
	var bash tools.Tool
	for _, t := range a.builtins {
		if t.Definition().Effects.Has(tools.RunsCommands) {
			bash = t
		}
	}
	if bash == nil {
		return tools.Result{}, errors.New("this session runs no commands")
	}
	if pat, ok := matchTool(a.toolDeny, "bash"); ok {
		return tools.Result{IsError: true, Content: fmt.Sprintf("not run: the rule %q denies bash", pat)}, nil
	}
	if r := a.rules.Check(command); r.Verdict == rules.Deny {
		return tools.Result{IsError: true, Content: "not run: " + r.Reason + " (a rule in your config)"}, nil
	}
	args, _ := json.Marshal(map[string]string{"command": command})
	res, err := bash.Run(ctx, tools.Call{ID: "person-shell", Args: args})
	if err != nil {
		return tools.Result{}, err
	}
	out := res.Content
	if len(out) > maxShellNote {
		out = out[:maxShellNote] + "\n(output cut here)"
	}
	a.shells.add(s.ID(), fmt.Sprintf("<bash-input>%s</bash-input>\n<bash-stdout>%s</bash-stdout>", command, out))
	return res, nil
}
