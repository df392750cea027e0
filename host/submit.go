package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agent-dev/agent/commands"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/profile"
	"github.com/agent-dev/agent/sessions"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/shell/rules"
	"github.com/agent-dev/agent/tools/shell/sandbox"
	"github.com/agent-dev/agent/turn"
)

// runner is the turn runner of a session of the agent: prompts go through
// submit (UserPromptSubmit's hooks, custom commands, MCP prompts), their
// mentions are attached, turns are recorded in store, and the services
// observe them.
func (a *agent) runner(store *sessions.Store) *turn.Runner {
	return &turn.Runner{Mentions: a.mentions, Sessions: store, Submit: a.submit, Observe: observeTurns(a.services)}
}

// startSession runs SessionStart's hooks for session id (resumed: -c, -r
// or session/load) and has onClose run SessionEnd's.
func (h *hookSet) startSession(ctx context.Context, id string, resumed bool, onClose func(func())) {
	if h == nil {
		return
	}
	source := "startup"
	if resumed {
		source = "resume"
	}
	h.sessionStart(ctx, id, source)
	onClose(func() { h.sessionEnd(context.WithoutCancel(ctx), id, "exit") })
}

// submit is the turn runner's Submit: UserPromptSubmit's hooks see what
// was typed and may block it (before anything of it runs) or add context,
// then a prompt that names a custom command ("/review main.go") becomes
// the command's prompt (its mentions attached, its snippets run), and one
// that names an MCP server's prompt ("/mcp__SERVER__PROMPT ARGS") the
// prompt's messages.
func (a *agent) submit(ctx context.Context, session string, p turn.Prompt) turn.Submission {
	typed := p.Typed
	if typed == "" {
		typed = p.Message.Text()
	}
	extra, blocked := a.hooks.submit(ctx, session, typed)
	if blocked != "" {
		return turn.Submission{Prompt: p, Blocked: blocked}
	}
	var notices []loop.Notice
	var model string
	if mp, n, why, ok := a.mcpPrompt(ctx, typed); ok {
		if why != "" {
			return turn.Submission{Prompt: p, Blocked: why}
		}
		p, notices = mp, n
	} else if e, ok := a.commands.Expand(ctx, typed); ok {
		np := turn.Text(e.Text)
		if rest := strings.TrimPrefix(p.Message.Text(), typed); rest != "" && p.Typed != "" {
			np.Message = providers.UserText(e.Text + rest) // piped input after the command stays data
		}
		p = np
		notices = append(notices, loop.Notice{Source: "commands", Text: "/" + e.Command.Name + " (" + e.Command.Path + ")"})
		for _, n := range e.Notes {
			notices = append(notices, loop.Notice{Source: "commands", Text: n})
		}
		var note string
		model, note = commandModel(a.settings.Provider, e.Command.Model)
		if note != "" {
			notices = append(notices, loop.Notice{Source: "commands", Text: note})
		}
	}
	p.Message = withContext(p.Message, extra)
	for _, note := range []string{a.backgroundPromptNote(session), a.mcpPromptNote()} {
		if note != "" {
			p.Message.Parts = append(slices.Clip(p.Message.Parts), providers.Text{Text: "\n\n" + note})
		}
	}
	return turn.Submission{Prompt: p, Notices: notices, Model: model}
}

// commandModel is the model a custom command's front matter names, for
// its one turn, and a note saying what was done with it. A name this
// provider cannot serve is not used, and the session's model answers:
// Claude Code's aliases (haiku, sonnet, opus) and a Claude model with a
// provider other than anthropic, so a repository's commands written for
// Claude Code still run.
func commandModel(provider, model string) (use, note string) {
	m := strings.ToLower(strings.TrimSpace(model))
	switch {
	case m == "" || m == "inherit" || m == "default":
		return "", ""
	case m == "haiku" || m == "sonnet" || m == "opus" || (strings.HasPrefix(m, "claude") && provider != profile.Anthropic):
		return "", "the command asks for model " + model + ", which this provider does not serve: the session's model answers"
	}
	return strings.TrimSpace(model), "model " + strings.TrimSpace(model) + " answers this command"
}

// snippetRunner runs a custom command's !`command` snippets (those its
// allowed-tools allow) with the bash tool, in the sandbox; a command the
// user's deny rules deny is not run, nor any where no sandbox confines
// commands (unless the sandbox is off by choice).
func (a *agent) snippetRunner() commands.RunFunc {
	var bash tools.Tool
	for _, t := range a.builtins {
		if t.Definition().Effects.Has(tools.RunsCommands) {
			bash = t
		}
	}
	if bash == nil {
		return nil
	}
	return func(ctx context.Context, command string) (string, error) {
		if r := a.rules.Check(command); r.Verdict == rules.Deny {
			return "", fmt.Errorf("denied by a rule in the config: %s", r.Reason)
		}
		if st := a.sandbox.Brief(); !st.Enforced && st.Mode != sandbox.Off {
			return "", errors.New("no sandbox confines commands here (agent doctor says why)")
		}
		args, _ := json.Marshal(map[string]string{"command": command})
		res, err := bash.Run(ctx, tools.Call{ID: "command-snippet", Args: args})
		if err != nil {
			return "", err
		}
		return res.Content, nil // a failed command's output says so
	}
}
