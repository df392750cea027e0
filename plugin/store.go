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
	"sync"
	"time"

	"github.com/agent-dev/agent/gitcmd"
)

// LocalMarketplace is the marketplace name of a plugin installed from a
// directory or a git repository by itself (name@local), which no added
// marketplace may take.
const LocalMarketplace = "local"

// Store is the plugins and marketplaces a person installed, in the data
// directory: DATA/plugins/registry.json (what is installed, from where,
// and the person's own enable or disable), the installed copies under
// DATA/plugins/installed/MARKETPLACE/NAME, and the marketplaces cloned
// from git under DATA/plugins/marketplaces/NAME. Its methods are safe for
// concurrent use, by other processes too (the registry is written under a
// lock file, through a temporary file renamed into place).
type Store struct {
	// Dir is DATA/plugins.
	Dir string
	mu  sync.Mutex
}

// NewStore is the store of the data directory dataDir.
func NewStore(dataDir string) *Store { return &Store{Dir: filepath.Join(dataDir, "plugins")} }

// Record is what the registry keeps of an installed plugin.
type Record struct {
	Name        string `json:"name"`
	Marketplace string `json:"marketplace"`
	Version     string `json:"version,omitempty"`
	// Source says where it was installed from: a directory, a git URL
	// (with the commit in Commit), or its marketplace entry's source.
	Source      string    `json:"source"`
	Commit      string    `json:"commit,omitempty"`
	InstalledAt time.Time `json:"installed_at"`
	// Enabled is the person's own choice (agent plugin enable or disable
	// without --scope); nil until they make one.
	Enabled *bool `json:"enabled,omitempty"`
	// Entry is the marketplace entry it was installed from, whose
	// component fields add to the manifest's (Strict false: replace
	// them).
	Entry  json.RawMessage `json:"entry,omitempty"`
	Strict *bool           `json:"strict,omitempty"`
}

// ID is the record's name@marketplace.
func (r Record) ID() string { return r.Name + "@" + r.Marketplace }

// MarketplaceRecord is what the registry keeps of an added marketplace.
type MarketplaceRecord struct {
	Name string `json:"name"`
	// Source is what was added: a path or a git URL.
	Source string `json:"source"`
	// File is its marketplace.json (in the clone, for a git
	// marketplace); Root the directory its relative plugin sources start
	// from.
	File    string    `json:"file"`
	Root    string    `json:"root"`
	Git     bool      `json:"git,omitempty"`
	AddedAt time.Time `json:"added_at"`
}

// registry is the registry file's content.
type registry struct {
	Plugins      map[string]Record            `json:"plugins"`
	Marketplaces map[string]MarketplaceRecord `json:"marketplaces"`
}

func (s *Store) registryPath() string { return filepath.Join(s.Dir, "registry.json") }

// pluginDir is where the plugin of id name@marketplace is installed.
func (s *Store) pluginDir(name, marketplace string) string {
	return filepath.Join(s.Dir, "installed", marketplace, name)
}

// read reads the registry; a missing file is an empty one.
func (s *Store) read() (registry, error) {
	r := registry{Plugins: map[string]Record{}, Marketplaces: map[string]MarketplaceRecord{}}
	data, err := os.ReadFile(s.registryPath())
	if errors.Is(err, fs.ErrNotExist) {
		return r, nil
	}
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return r, fmt.Errorf("%s: %w", s.registryPath(), err)
	}
	if r.Plugins == nil {
		r.Plugins = map[string]Record{}
	}
	if r.Marketplaces == nil {
		r.Marketplaces = map[string]MarketplaceRecord{}
	}
	return r, nil
}

// update changes the registry with change under the store's locks and
// writes it back when change returns no error.
func (s *Store) update(change func(*registry) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	unlock := gitcmd.LockFile(filepath.Join(s.Dir, "registry.lock"))
	defer unlock()
	r, err := s.read()
	if err != nil {
		return err
	}
	if err := change(&r); err != nil {
		return err
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(s.Dir, "registry-*.json")
	if err != nil {
		return err
	}
	_, err = tmp.Write(append(data, '\n'))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), s.registryPath())
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// Installed returns the installed plugins' records, sorted by id.
func (s *Store) Installed() ([]Record, error) {
	r, err := s.read()
	if err != nil {
		return nil, err
	}
	out := make([]Record, 0, len(r.Plugins))
	for _, id := range slices.Sorted(maps.Keys(r.Plugins)) {
		out = append(out, r.Plugins[id])
	}
	return out, nil
}

// Marketplaces returns the added marketplaces, sorted by name.
func (s *Store) Marketplaces() ([]MarketplaceRecord, error) {
	r, err := s.read()
	if err != nil {
		return nil, err
	}
	out := make([]MarketplaceRecord, 0, len(r.Marketplaces))
	for _, n := range slices.Sorted(maps.Keys(r.Marketplaces)) {
		out = append(out, r.Marketplaces[n])
	}
	return out, nil
}

// Find returns the record of the installed plugin ref names: its id
// (name@marketplace), or its name alone when one installed plugin has
// it. An unknown or ambiguous ref is an error that says so.
func (s *Store) Find(ref string) (Record, error) {
	r, err := s.read()
	if err != nil {
		return Record{}, err
	}
	if rec, ok := r.Plugins[ref]; ok {
		return rec, nil
	}
	var matches []string
	for id, rec := range r.Plugins {
		if rec.Name == ref {
			matches = append(matches, id)
		}
	}
	slices.Sort(matches)
	switch len(matches) {
	case 0:
		return Record{}, fmt.Errorf("no installed plugin %s (agent plugin list shows them)", ref)
	case 1:
		return r.Plugins[matches[0]], nil
	}
	return Record{}, fmt.Errorf("%s names several installed plugins: %v; give NAME@MARKETPLACE", ref, matches)
}

// Load loads the installed plugin of rec (see Load).
func (s *Store) Load(rec Record) Plugin {
	return Load(s.pluginDir(rec.Name, rec.Marketplace), rec)
}

// SetEnabled records the person's own choice for the installed plugin ref
// names (see Find): on or off wherever a project's settings do not say
// otherwise. It returns the plugin's record.
func (s *Store) SetEnabled(ref string, on bool) (Record, error) {
	rec, err := s.Find(ref)
	if err != nil {
		return Record{}, err
	}
	err = s.update(func(r *registry) error {
		cur, ok := r.Plugins[rec.ID()]
		if !ok {
			return fmt.Errorf("no installed plugin %s", rec.ID())
		}
		cur.Enabled = &on
		r.Plugins[rec.ID()] = cur
		rec = cur
		return nil
	})
	return rec, err
}

// Remove uninstalls the plugin ref names (see Find): its record and its
// installed copy. It returns the removed record.
func (s *Store) Remove(ref string) (Record, error) {
	rec, err := s.Find(ref)
	if err != nil {
		return Record{}, err
	}
	err = s.update(func(r *registry) error {
		delete(r.Plugins, rec.ID())
		return nil
	})
	if err != nil {
		return Record{}, err
	}
	return rec, os.RemoveAll(s.pluginDir(rec.Name, rec.Marketplace))
}
