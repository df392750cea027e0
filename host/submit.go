package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agent-dev/agent/claudesettings"
	"github.com/agent-dev/agent/commands"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
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
		model, note = commandModel(a.settings, e.Command.Model)
		if note != "" {
			notices = append(notices, loop.Notice{Source: "commands", Text: note})
		}
	}
	ran, notes := a.shells.take(session)
	if ran != "" {
		extra = append([]string{"The user ran these commands in the interface before this prompt:\n" + ran}, extra...)
	}
	if notes != "" {
		extra = append([]string{notes}, extra...)
	}
	p.Message = withContext(p.Message, extra)
	for _, note := range []string{a.backgroundPromptNote(session), a.mcpPromptNote()} {
		if note != "" {
			p.Message.Parts = append(slices.Clip(p.Message.Parts), providers.Text{Text: "\n\n" + note})
		}
	}
	return turn.Submission{Prompt: p, Notices: notices, Model: model}
}

// commandModel is the model a custom command's or a skill's front
// matter names, for its one turn, and a note saying what was done with it
// (profile.Settings.ResolveModel): an alias is its model_aliases entry,
// and a name this provider cannot serve is not used (the session's model
// answers: Claude Code's aliases without an entry, a Claude model with a
// provider other than anthropic), so a repository's commands written for
// Claude Code still run.
func commandModel(s Settings, model string) (use, note string) {
	use, why := s.ResolveModel(model)
	if why != "" {
		return "", "the command asks for model " + strings.TrimSpace(model) + ", " + why + ": the session's model answers"
	}
	if use != "" {
		note = "model " + use + " answers this command"
	}
	return use, note
}

// snippetRunner runs a custom command's !`command` snippets (those
// allowed, or that the person allowed) with the bash tool of builtins, in
// the sandbox; where no sandbox confines commands (unless it is off by
// choice), none.
func (a *agent) snippetRunner(builtins []tools.Tool) commands.RunFunc {
	var bash tools.Tool
	for _, t := range builtins {
		if t.Definition().Effects.Has(tools.RunsCommands) {
			bash = t
		}
	}
	if bash == nil {
		return nil
	}
	return func(ctx context.Context, command string) (string, error) {
		if st := a.sandbox.Brief(); !st.Enforced && st.Mode != sandbox.Off {
			return "", errors.New("no sandbox confines commands here (agent doctor says why)")
		}
		loop.WaitToolGate(ctx) // the prompt's checkpoint comes before what the snippet changes
		return runSnippet(ctx, bash, command)
	}
}

// readOnlySnippetRunner runs read-only snippets in the subagents'
// read-only sandbox; nil where none is enforced.
func (a *agent) readOnlySnippetRunner() commands.RunFunc {
	if a.children == nil || a.children.bash == nil {
		return nil
	}
	bash := a.children.bash
	return func(ctx context.Context, command string) (string, error) { return runSnippet(ctx, bash, command) }
}

// runSnippet runs command with bash and returns its output (a failed
// command's output says so).
func runSnippet(ctx context.Context, bash tools.Tool, command string) (string, error) {
	args, _ := json.Marshal(map[string]string{"command": command})
	res, err := bash.Run(ctx, tools.Call{ID: "command-snippet", Args: args})
	if err != nil {
		return "", err
	}
	return res.Content, nil
}

// snippetJudge decides a custom command's snippet: a deny rule denies it
// (the config's, Claude Code settings'); an ask rule asks; a command line
// whose every simple command only reads (rules.ReadOnly, as plan mode)
// runs in the read-only sandbox; one whose every simple command the
// command's allowed-tools or the person's allow rules allow runs in the
// sandbox; anything else is asked about.
func (a *agent) snippetJudge() commands.JudgeFunc {
	return func(c commands.Command, command string) (commands.Verdict, string) {
		if r := a.rules.Check(command); r.Verdict == rules.Deny {
			return commands.SnippetDenied, "denied by a rule in your config: " + r.Reason
		}
		if a.claude.asks.allBash {
			return commands.SnippetAsk, "an ask rule"
		}
		if q := a.claude.asks.commands; q != nil && q.Check(command).Verdict == rules.Deny {
			return commands.SnippetAsk, "an ask rule"
		}
		if rules.ReadOnly().Check(command).Verdict == rules.Allow {
			return commands.SnippetReadOnly, "read-only"
		}
		allow := slices.Clone(a.allowCommands)
		for _, t := range c.AllowedTools {
			r, _, ok := claudesettings.Translate(t, a.dir, a.dir, "", false)
			switch {
			case !ok:
			case r.Kind == claudesettings.KindAllBash:
				return commands.SnippetAllowed, "allowed-tools: " + t
			case r.Kind == claudesettings.KindCommand:
				allow = append(allow, r.Value)
			}
		}
		if set, err := rules.Compile(allow, a.denyCommands); err == nil && set.Check(command).Verdict == rules.Allow {
			return commands.SnippetAllowed, "allowed-tools and rules"
		}
		if programPath(command) && commands.Allows(c.AllowedTools, command) {
			// An entry naming a program by its path (a plugin's
			// ${CLAUDE_PLUGIN_ROOT}/scripts/x.sh), which command rules,
			// matching bare names, cannot: the line is that program
			// with arguments, nothing chained to it.
			return commands.SnippetAllowed, "allowed-tools"
		}
		return commands.SnippetAsk, ""
	}
}

// programPath reports whether command's program is named by a path
// (quoted or not), which command rules cannot name; one named bare is
// the rules' to judge alone, a write they see included.
func programPath(command string) bool {
	f := strings.Fields(strings.TrimSpace(command))
	return len(f) > 0 && strings.Contains(f[0], "/")
}

// snippetAsk asks fe's person about a snippet nothing decides, as about a
// bash call; nil without an Asker (headless: not run).
func snippetAsk(fe FrontEnd) commands.AskFunc {
	if fe.Asker == nil {
		return nil
	}
	return func(ctx context.Context, c commands.Command, command string) bool {
		args, _ := json.Marshal(map[string]string{"command": command})
		call := providers.ToolCall{ID: "command-snippet", Name: "bash", Arguments: string(args)}
		def := tools.Definition{Name: "bash", Effects: tools.RunsCommands}
		d := fe.Asker.Ask(ctx, Question{Req: loop.Approval{Call: call, Def: def}, Def: def,
			Reason: fmt.Sprintf("/%s runs !`%s` before its prompt is sent; neither its allowed-tools nor your rules allow it", c.Name, command)})
		return d.Allow
	}
}
