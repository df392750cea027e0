package cmd

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agent-dev/agent/commands"
	"github.com/agent-dev/agent/hooks"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/tui"
)

// hookListing lists every hook of a's run, one line each: its event,
// matcher, command, timeout and the file it came from, and for a
// repository's whether it is trusted (store's answers; nil store: not
// known). /hooks and agent doctor show it.
func hookListing(a *agent, store *trustStore) string {
	if len(a.ext.hooks) == 0 {
		return "No hooks: add [[hooks.EVENT]] to the config file, or hooks to ~/.claude/settings.json or the project's .claude/settings.json."
	}
	_, by := hookSources(projectHooks(a.ext.hooks))
	var b strings.Builder
	b.WriteString("Hooks:\n")
	for _, h := range a.ext.hooks {
		what := h.Event
		if h.Matcher != "" {
			what += " " + h.Matcher
		}
		fmt.Fprintf(&b, "  %s: %s (%s", what, h.Command, h.Source)
		if h.Timeout > 0 {
			fmt.Fprintf(&b, ", timeout %s", h.Timeout)
		}
		if h.Project {
			rel := relSource(a.dir, h.Source)
			switch store.get(trustHooks, a.dir, rel, hooksDefinition(by[h.Source])) {
			case trustAllowed:
				b.WriteString("; the project's, trusted")
			case trustRefused:
				b.WriteString("; the project's, refused")
			case trustChanged:
				b.WriteString("; the project's, changed since trusted: not run until trusted again")
			default:
				b.WriteString("; the project's, not trusted yet")
			}
		} else {
			b.WriteString("; yours")
		}
		b.WriteString(")\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

func projectHooks(all []hooks.Hook) []hooks.Hook {
	var out []hooks.Hook
	for _, h := range all {
		if h.Project {
			out = append(out, h)
		}
	}
	return out
}

// customCommands are the custom commands as the interface offers them.
func customCommands(cmds []commands.Command) []tui.CustomCommand {
	out := make([]tui.CustomCommand, len(cmds))
	for i, c := range cmds {
		out[i] = tui.CustomCommand{Name: c.Name, ArgumentHint: c.ArgumentHint, Description: c.Description}
	}
	return out
}

// notifyingAsker runs the Notification hooks when a person is asked, then
// asks.
type notifyingAsker struct {
	asker
	hooks *hookSet
}

func (n notifyingAsker) ask(ctx context.Context, q question) loop.Decision {
	n.hooks.notify(ctx, q.req.Session, hooks.NotifyPermission, fmt.Sprintf("agent needs your permission to use %s", q.def.Name))
	return n.asker.ask(ctx, q)
}

// printExtensions is agent doctor's part about hooks (each with its
// source and, for a repository's, whether it is trusted), custom commands
// and skills.
func printExtensions(line func(string, string, ...any), o *Options, getenv func(string) string, dir string, s settings) {
	ext := loadExtensions(dir, s)
	a := &agent{dir: dir, ext: ext}
	var store *trustStore
	if db, err := dbPath(o, getenv); err == nil {
		store = &trustStore{path: filepath.Join(filepath.Dir(db), trustFile)}
	}
	if len(ext.hooks) == 0 {
		line("hooks", "none")
	} else {
		line("hooks", "%d (project hooks run once trusted; --trust-project headless)", len(ext.hooks))
		for _, l := range strings.Split(strings.TrimPrefix(hookListing(a, store), "Hooks:\n"), "\n") {
			line("", "%s", strings.TrimSpace(l))
		}
	}
	names := func(n int, name func(int) string) string {
		var out []string
		for i := range n {
			out = append(out, name(i))
		}
		return strings.Join(out, ", ")
	}
	line("commands", "%d %s", len(ext.commands), names(len(ext.commands), func(i int) string { return "/" + ext.commands[i].Name }))
	line("skills", "%d %s", len(ext.skills), names(len(ext.skills), func(i int) string { return ext.skills[i].Name }))
	for _, w := range ext.warnings {
		line("", "%s", w)
	}
}
