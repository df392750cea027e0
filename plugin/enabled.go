package plugin

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
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

// settingsFiles are the files whose enabledPlugins count for a run in dir
// of the person whose home is home, lowest first: ~/.claude/settings.json
// (the person's Claude Code choice, below their own choice in agent's
// registry), then the project's .claude/settings.json and
// .claude/settings.local.json (Claude Code's order: local wins).
func settingsFiles(dir, home string) (user []string, project []string) {
	if home != "" {
		user = []string{filepath.Join(home, ".claude", "settings.json")}
	}
	if dir != "" {
		project = []string{filepath.Join(dir, ".claude", "settings.json"), filepath.Join(dir, ".claude", "settings.local.json")}
	}
	return user, project
}

// readSettings reads the enabledPlugins of paths; a missing file has
// none, and one that cannot be read is a note.
func readSettings(paths []string) (out []setting, notes []string) {
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			notes = append(notes, fmt.Sprintf("plugins: %s: %v", p, err))
			continue
		}
		var f struct {
			Enabled map[string]json.RawMessage `json:"enabledPlugins"`
		}
		if err := json.Unmarshal(data, &f); err != nil {
			notes = append(notes, fmt.Sprintf("plugins: %s: %v", p, err))
			continue
		}
		s := setting{path: p, by: p, on: map[string]bool{}}
		for _, id := range slices.Sorted(maps.Keys(f.Enabled)) {
			var on bool
			if err := json.Unmarshal(f.Enabled[id], &on); err != nil {
				notes = append(notes, fmt.Sprintf("plugins: %s: enabledPlugins[%q] is not true or false", p, id))
				continue
			}
			s.on[id] = on
		}
		out = append(out, s)
	}
	return out, notes
}

// Listing is every installed plugin, loaded, with whether it is enabled
// in a directory, and what the settings files say that names no
// installed plugin.
type Listing struct {
	Plugins []Plugin
	// Notes are the settings' problems and the plugins they enable that
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
	userFiles, projectFiles := settingsFiles(dir, home)
	user, notes := readSettings(userFiles)
	project, more := readSettings(projectFiles)
	l := Listing{Notes: append(notes, more...)}
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
