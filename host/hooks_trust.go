package host

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-dev/agent/hooks"
	"github.com/agent-dev/agent/providers"
)

// trustHooks is the kind of a repository's hooks in the trust store: one
// answer per file that defines them, for all of the file's hooks as they
// are (a change to any asks again).
const trustHooks = "hooks"

// hookSources groups a repository's hooks by the file that defines them,
// in the order of the files.
func hookSources(project []hooks.Hook) (order []string, by map[string][]hooks.Hook) {
	by = map[string][]hooks.Hook{}
	for _, h := range project {
		if _, ok := by[h.Source]; !ok {
			order = append(order, h.Source)
		}
		by[h.Source] = append(by[h.Source], h)
	}
	return order, by
}

// hooksDefinition is the canonical text of a file's hooks.
func hooksDefinition(hs []hooks.Hook) string {
	lines := make([]string, len(hs))
	for i, h := range hs {
		lines[i] = h.Definition()
	}
	return strings.Join(lines, "\n")
}

// relSource is a hook file's path relative to dir, for questions and the
// trust store's key.
func relSource(dir, source string) string {
	if r, err := filepath.Rel(dir, source); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return source
}

// headlessHookTrust decides a repository's hooks where nobody can be
// asked: with trustAll (--trust-project) every one runs; otherwise a
// file's hooks run only when the person trusted them as they are now.
// warn is told which files' hooks do not run, and why.
func headlessHookTrust(store *trustStore, dir string, trustAll bool, warn func(string)) func(context.Context, []hooks.Hook) ([]hooks.Hook, bool) {
	return func(_ context.Context, project []hooks.Hook) ([]hooks.Hook, bool) {
		if trustAll {
			return project, true
		}
		order, by := hookSources(project)
		var run []hooks.Hook
		for _, src := range order {
			rel := relSource(dir, src)
			switch store.get(trustHooks, dir, rel, hooksDefinition(by[src])) {
			case trustAllowed:
				run = append(run, by[src]...)
			case trustChanged:
				warn(fmt.Sprintf("not running the hooks of %s: they changed since you trusted them (run agent in the interface to be asked again, or --trust-project)", rel))
			case trustRefused:
				warn(fmt.Sprintf("not running the hooks of %s: refused earlier for this repository", rel))
			default:
				warn(fmt.Sprintf("not running the hooks of %s: they run this repository's commands and are not trusted (--trust-project runs them)", rel))
			}
		}
		return run, true
	}
}

// askHookTrust decides a repository's hooks in the interface: the
// remembered answer for a file's hooks as they are, else the person's,
// remembered; the question shows every command the file would run. ask
// puts the question; answered false (dismissed, or agent stopping) runs
// none of the file's hooks and asks again at the next start.
func askHookTrust(store *trustStore, dir string, ask func(ctx context.Context, call providers.ToolCall, question string) (allow, answered bool), warn func(string)) func(context.Context, []hooks.Hook) ([]hooks.Hook, bool) {
	return func(ctx context.Context, project []hooks.Hook) ([]hooks.Hook, bool) {
		order, by := hookSources(project)
		var run []hooks.Hook
		all := true
		for _, src := range order {
			rel, def := relSource(dir, src), hooksDefinition(by[src])
			known := store.get(trustHooks, dir, rel, def)
			switch known {
			case trustAllowed:
				run = append(run, by[src]...)
				continue
			case trustRefused:
				continue
			}
			var shown []string
			for _, h := range by[src] {
				m := h.Event
				if h.Matcher != "" {
					m += " (" + h.Matcher + ")"
				}
				shown = append(shown, m+": "+h.Runs())
			}
			args, _ := json.Marshal(map[string]any{"from": src, "runs": shown, "in": dir})
			question := fmt.Sprintf("Run the hooks of %s? They run this repository's commands as you, outside the sandbox, on every matching event (answer remembered).", rel)
			if known == trustChanged {
				question = fmt.Sprintf("The hooks of %s CHANGED since you last answered: run them as they are now? They run this repository's commands as you, outside the sandbox (answer remembered).", rel)
			}
			allow, answered := ask(ctx, providers.ToolCall{ID: "hooks-trust-" + rel, Name: "run project hooks " + rel, Arguments: string(args)}, question)
			if ctx.Err() != nil || !answered {
				all = false
				warn(fmt.Sprintf("not running the hooks of %s this time: the question was not answered", rel))
				continue
			}
			_ = store.set(trustHooks, dir, rel, def, allow)
			if allow {
				run = append(run, by[src]...)
			}
		}
		return slices.Clip(run), all
	}
}
