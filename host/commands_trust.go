package host

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agent-dev/agent/commands"
	"github.com/agent-dev/agent/providers"
)

// trustCommands is the kind of a repository's custom commands in the
// trust store: one answer per command file, for its allowed-tools and
// body as they are (a change asks again).
const trustCommands = "commands"

// commandDefinition is the canonical text of what a command may run.
func commandDefinition(c commands.Command) string {
	b, _ := json.Marshal(struct {
		AllowedTools []string `json:"allowed_tools"`
		Body         string   `json:"body"`
	}{c.AllowedTools, c.Body})
	return string(b)
}

// headlessCommandTrust decides whether a repository's command may run its
// !`command` snippets where nobody can be asked: with trustAll
// (--trust-project), or when the person trusted the file as it is now.
func headlessCommandTrust(store *trustStore, dir string, trustAll bool) func(context.Context, commands.Command, []string) bool {
	return func(_ context.Context, c commands.Command, _ []string) bool {
		return trustAll || store.get(trustCommands, dir, relSource(dir, c.Path), commandDefinition(c)) == trustAllowed
	}
}

// askCommandTrust decides it in the interface: the remembered answer for
// the file as it is, else the person's (remembered when answered).
func askCommandTrust(store *trustStore, dir string, ask func(ctx context.Context, call providers.ToolCall, question string) (allow, answered bool)) func(context.Context, commands.Command, []string) bool {
	return func(ctx context.Context, c commands.Command, snippets []string) bool {
		rel, def := relSource(dir, c.Path), commandDefinition(c)
		switch store.get(trustCommands, dir, rel, def) {
		case trustAllowed:
			return true
		case trustRefused:
			return false
		}
		args, _ := json.Marshal(map[string]any{"from": c.Path, "runs": snippets, "in": dir})
		question := fmt.Sprintf("/%s is this repository's command (%s): run its commands %s in the sandbox before sending it? (answer remembered until the file changes)",
			c.Name, rel, strings.Join(snippets, ", "))
		allow, answered := ask(ctx, providers.ToolCall{ID: "command-trust-" + rel, Name: "run project command " + rel, Arguments: string(args)}, question)
		if ctx.Err() != nil || !answered {
			return false
		}
		_ = store.set(trustCommands, dir, rel, def, allow)
		return allow
	}
}

// commandTrust decides whether a repository's custom command may run its
// !`command` snippets for fe: asking the person where fe.Trust.Ask can
// and answers can be kept, else as headless runs do.
func (h *Host) commandTrust(dir string, fe FrontEnd) func(context.Context, commands.Command, []string) bool {
	if fe.Trust.Ask != nil && h.trust != nil {
		return askCommandTrust(h.trust, dir, fe.Trust.Ask)
	}
	return headlessCommandTrust(h.trust, dir, fe.Trust.Hooks)
}
