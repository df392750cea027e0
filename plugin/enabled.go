package plugin

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/agent-dev/agent/claudesettings"
)

// Scope is where an enable or disable is written.
type Scope string

// The scopes, as Claude Code names them.
const (
	// ScopeUser is the person's own choice, in the store's registry.
	ScopeUser Scope = "user"
	// ScopeProject is the project's .claude/settings.json.
	ScopeProject Scope = "project"
	// ScopeLocal is the project's .claude/settings.local.json.
	ScopeLocal Scope = "local"
)

// ParseScope reads a --scope value; "" is ScopeUser.
func ParseScope(s string) (Scope, error) {
	switch Scope(s) {
	case "", ScopeUser:
		return ScopeUser, nil
	case ScopeProject, ScopeLocal:
		return Scope(s), nil
	}
	return "", fmt.Errorf("scope %q: use user, project or local", s)
}

// setting is one settings file's enabledPlugins.
type setting struct {
	path string
	// by says where the choice came from, for Plugin.EnabledBy.
	by string
	on map[string]bool
}

// readSettings reads the enabledPlugins of Claude Code's settings files
// for a run in dir by the person whose home is home (claudesettings, the
// one reader of those files), lowest first: user is ~/.claude/settings.json
// (the person's Claude Code choice, below their own choice in agent's
// registry), project the repository's .claude/settings.json and
// .claude/settings.local.json (Claude Code's order: local wins). A file
// that cannot be read is left out; the session's warnings and agent doctor
// name it, with the rest of the settings.
func readSettings(dir, home string) (user, project []setting) {
	files, _ := claudesettings.Load(home, dir)
	for _, f := range files {
		if f.EnabledPlugins == nil {
			continue
		}
		s := setting{path: f.Path, by: f.Path, on: f.EnabledPlugins}
		if f.Project {
			project = append(project, s)
		} else {
			user = append(user, s)
		}
	}
	return user, project
}

// Listing is every installed plugin, loaded, with whether it is enabled
// in a directory, and what the settings files say that names no
// installed plugin.
type Listing struct {
	Plugins []Plugin
	// Notes are the plugins the settings files enable that
	// are not installed (a repository may name plugins; they run only
	// once the person installs them).
	Notes []string
}

// List loads every installed plugin and says whether each is enabled for
// a run in dir by the person whose home is home (see Enabled).
func (s *Store) List(dir, home string) (Listing, error) {
	return s.list(dir, home, false)
}

// Enabled returns the installed plugins enabled for a run in dir by the
// person whose home is home, loaded, and the notes of the settings files
// (a file that cannot be read). A plugin is enabled unless the last of
// these that says something says false: ~/.claude/settings.json's
// enabledPlugins, the person's choice in the registry (agent plugin
// enable or disable), the project's .claude/settings.json, then its
// .claude/settings.local.json. A repository's settings choose among the
// plugins the person installed, which the person trusted when installing
// them; they never install one.
func (s *Store) Enabled(dir, home string) ([]Plugin, []string, error) {
	l, err := s.list(dir, home, true)
	if err != nil {
		return nil, nil, err
	}
	return l.Plugins, l.Notes, nil
}

func (s *Store) list(dir, home string, onlyEnabled bool) (Listing, error) {
	recs, err := s.Installed()
	if err != nil {
		return Listing{}, err
	}
	user, project := readSettings(dir, home)
	var l Listing
	installed := map[string]bool{}
	for _, rec := range recs {
		installed[rec.ID()] = true
		on, by := true, "default: on once installed"
		for _, st := range user {
			if v, ok := st.on[rec.ID()]; ok {
				on, by = v, st.by
			}
		}
		if rec.Enabled != nil {
			on, by = *rec.Enabled, "agent plugin "+map[bool]string{true: "enable", false: "disable"}[*rec.Enabled]
		}
		for _, st := range project {
			if v, ok := st.on[rec.ID()]; ok {
				on, by = v, st.by
			}
		}
		if onlyEnabled && !on {
			continue
		}
		p := s.Load(rec)
		p.Enabled, p.EnabledBy = on, by
		l.Plugins = append(l.Plugins, p)
	}
	if !onlyEnabled {
		var missing []string
		for _, st := range append(user, project...) {
			for id, on := range st.on {
				if on && !installed[id] && !slices.Contains(missing, id) {
					missing = append(missing, id)
					l.Notes = append(l.Notes, fmt.Sprintf("plugins: %s enables %s, which is not installed in agent (agent plugin install %s, once its marketplace is added)", st.path, id, id))
				}
			}
		}
		slices.Sort(l.Notes)
	}
	return l, nil
}

// SetEnabledIn writes id's enable (on) or disable into the settings file
// of scope (ScopeProject or ScopeLocal) in dir, keeping the file's other
// settings; it returns the file's path.
func SetEnabledIn(dir string, scope Scope, id string, on bool) (string, error) {
	var path string
	switch scope {
	case ScopeProject:
		path = filepath.Join(dir, ".claude", "settings.json")
	case ScopeLocal:
		path = filepath.Join(dir, ".claude", "settings.local.json")
	default:
		return "", fmt.Errorf("scope %q is not a settings file's", scope)
	}
	doc := map[string]json.RawMessage{}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return "", err
	default:
		if err := json.Unmarshal(data, &doc); err != nil {
			return "", fmt.Errorf("%s: %w", path, err)
		}
	}
	enabled := map[string]json.RawMessage{}
	if raw, ok := doc["enabledPlugins"]; ok {
		if err := json.Unmarshal(raw, &enabled); err != nil {
			return "", fmt.Errorf("%s: enabledPlugins: %w", path, err)
		}
	}
	enabled[id], _ = json.Marshal(on)
	doc["enabledPlugins"], _ = json.Marshal(enabled)
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	return path, os.WriteFile(path, append(out, '\n'), 0o644)
}
