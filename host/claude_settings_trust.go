package host

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/agent-dev/agent/claudesettings"
	"github.com/agent-dev/agent/providers"
)

// trustSettings is the kind of a repository's Claude Code settings file in
// the trust store: one answer per file, for what it would widen (its allow
// rules, its env, its status line command) exactly as it is; any change
// asks again.
const trustSettings = "settings"

// widens reports whether a repository's settings file holds what only
// trust applies: allow rules, env, a status line command.
func widens(f claudesettings.File) bool {
	return f.Project && (len(f.Permissions.Allow) > 0 || len(f.Env) > 0 || (f.StatusLine != nil && f.StatusLine.Command != ""))
}

// settingsDefinition is the canonical text of what f would widen.
func settingsDefinition(f claudesettings.File) string {
	sl := ""
	if f.StatusLine != nil {
		sl = f.StatusLine.Command
	}
	b, _ := json.Marshal(struct {
		Allow      []string          `json:"allow,omitempty"`
		Env        map[string]string `json:"env,omitempty"`
		StatusLine string            `json:"statusLine,omitempty"`
	}{f.Permissions.Allow, f.Env, sl})
	return string(b)
}

// settingsTrust returns what decides whether a repository's settings file
// in dir widens what is allowed: every one with trustAll (--trust-project),
// else one the person trusted as it is now (store nil: none).
func settingsTrust(store *trustStore, dir string, trustAll bool) func(claudesettings.File) bool {
	return func(f claudesettings.File) bool {
		if trustAll {
			return true
		}
		return store.get(trustSettings, dir, relSource(dir, f.Path), settingsDefinition(f)) == trustAllowed
	}
}

// AskSettingsTrust asks the person, through the front-end's Trust.Ask,
// about each of the repository's Claude Code settings files that would
// widen what is allowed (allow rules, env, a status line command) and that
// they have not answered for as it is now; the answer is remembered and
// holds from the next session in this directory on (this one's rules are
// built). It returns when every question is answered or ctx ends; nothing
// without Trust.Ask or a trust store.
func (s *Session) AskSettingsTrust(ctx context.Context, fe FrontEnd) {
	store, dir := s.h.trust, s.a.dir
	if fe.Trust.Ask == nil || store == nil {
		return
	}
	for _, f := range s.a.claude.files {
		if !widens(f) {
			continue
		}
		rel, def := relSource(dir, f.Path), settingsDefinition(f)
		known := store.get(trustSettings, dir, rel, def)
		if known == trustAllowed || known == trustRefused {
			continue
		}
		args, _ := json.Marshal(map[string]any{"file": f.Path, "allow": f.Permissions.Allow, "env": envNames(f.Env), "statusLine": f.StatusLine})
		question := fmt.Sprintf("Apply %s from your next session in this repository on? Its allow rules let commands and tools run without asking, its env reaches commands and hooks, its status line runs as you (answer remembered).", filepath.ToSlash(rel))
		if known == trustChanged {
			question = fmt.Sprintf("%s CHANGED since you last answered: apply it as it is now, from your next session on? (answer remembered)", filepath.ToSlash(rel))
		}
		allow, answered := fe.Trust.Ask(ctx, providers.ToolCall{ID: "settings-trust-" + rel, Name: "apply project settings " + rel, Arguments: string(args)}, question)
		if ctx.Err() != nil || !answered {
			return
		}
		_ = store.set(trustSettings, dir, rel, def, allow)
	}
}

// envNames are the names of env, sorted: a question shows them, not their
// values.
func envNames(env map[string]string) []string {
	var out []string
	for k := range env {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
