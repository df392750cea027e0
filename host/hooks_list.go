package host

import (
	"fmt"
	"strings"

	"github.com/agent-dev/agent/hooks"
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
		fmt.Fprintf(&b, "  %s: %s (%s", what, h.Runs(), h.Source)
		if h.Timeout > 0 {
			fmt.Fprintf(&b, ", timeout %s", h.Timeout)
		}
		switch {
		case h.Plugin != "":
			b.WriteString("; plugin " + h.Plugin)
		case h.Project:
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
		default:
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
