package plugin

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Staged is a plugin fetched into the store's staging area, loaded so
// that the person can see what it contains before it is installed
// (Commit) or thrown away (Discard).
type Staged struct {
	// Plugin is the staged copy, loaded; its paths are the staging
	// area's (Contents shows them where the plugin will be installed).
	Plugin Plugin
	// Record is what the registry will keep.
	Record Record
	// Notes are what the copy left out (symlinks).
	Notes []string
	// Replaces is true when a plugin of the same id is installed: Commit
	// replaces its copy and keeps the person's enable or disable.
	Replaces bool

	store *Store
	tmp   string // the staging directory, removed by Commit and Discard
	dir   string // the staged plugin, inside tmp
}

// marketplaceRef is NAME@MARKETPLACE.
var marketplaceRef = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9._-]*)@([A-Za-z0-9][A-Za-z0-9._-]*)$`)
})

func (s *Store) stagingDir() string {
	dir := filepath.Join(s.Dir, "staging")
	_ = os.MkdirAll(dir, 0o700)
	return dir
}

// Stage fetches the plugin source names into the staging area and loads
// it: NAME@MARKETPLACE (an added marketplace's entry), a directory
// (relative to cwd; copied, or cloned when it is the top of a git work
// tree), or a git repository's URL (cloned; GitHub's owner/repo too).
// A source that holds a marketplace and no plugin is an error saying how
// to add the marketplace. Nothing is installed until Commit.
func (s *Store) Stage(ctx context.Context, source, cwd string) (*Staged, error) {
	if m := marketplaceRef().FindStringSubmatch(source); m != nil {
		if _, err := os.Stat(filepath.Join(cwd, source)); err != nil {
			return s.stageEntry(ctx, m[1], m[2])
		}
	}
	o, err := locate(source, cwd)
	if err != nil {
		return nil, err
	}
	st, err := s.newStaged()
	if err != nil {
		return nil, err
	}
	commit, notes, err := fetch(ctx, o, "", "", "", st.dir)
	if err != nil {
		st.Discard()
		return nil, err
	}
	st.Notes = notes
	name := filepath.Base(cmpOr(o.dir, strings.TrimSuffix(strings.TrimRight(o.git, "/"), ".git")))
	if m, ok, err := ReadManifest(st.dir); err == nil && ok && m.Name != "" {
		name = m.Name
	}
	rec := Record{Name: name, Marketplace: LocalMarketplace, Source: cmpOr(o.dir, o.git), Commit: commit}
	if err := st.finish(rec); err != nil {
		st.Discard()
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	return st, nil
}

// stageEntry stages the plugin name of the added marketplace mkt.
func (s *Store) stageEntry(ctx context.Context, name, mkt string) (*Staged, error) {
	rec, m, err := s.Marketplace(mkt)
	if err != nil {
		return nil, err
	}
	var entry *Entry
	for i := range m.Plugins {
		if m.Plugins[i].Name == name {
			entry = &m.Plugins[i]
		}
	}
	if entry == nil {
		return nil, fmt.Errorf("marketplace %s has no plugin %s (agent plugin marketplace list %s lists them)", mkt, name, mkt)
	}
	o, sub, err := entryOrigin(rec, m, *entry)
	if err != nil {
		return nil, fmt.Errorf("%s@%s: %w", name, mkt, err)
	}
	st, err := s.newStaged()
	if err != nil {
		return nil, err
	}
	commit, notes, err := fetch(ctx, o, entry.Source.Ref, entry.Source.SHA, sub, st.dir)
	if err != nil {
		st.Discard()
		return nil, fmt.Errorf("%s@%s: %w", name, mkt, err)
	}
	st.Notes = notes
	source := o.dir
	if entry.Source.Repo != "" {
		source = entry.Source.String()
	}
	r := Record{Name: name, Marketplace: mkt, Version: entry.Version, Source: source, Commit: commit,
		Entry: entry.Raw, Strict: entry.Strict}
	if err := st.finish(r); err != nil {
		st.Discard()
		return nil, fmt.Errorf("%s@%s: %w", name, mkt, err)
	}
	return st, nil
}

// newStaged makes a staging directory.
func (s *Store) newStaged() (*Staged, error) {
	tmp, err := os.MkdirTemp(s.stagingDir(), "install-*")
	if err != nil {
		return nil, fmt.Errorf("plugins: %w", err)
	}
	return &Staged{store: s, tmp: tmp, dir: filepath.Join(tmp, "plugin")}, nil
}

// finish checks the staged copy is a plugin named validly and loads it.
func (st *Staged) finish(rec Record) error {
	if err := CheckName(rec.Name); err != nil {
		return fmt.Errorf("plugin %w", err)
	}
	_, hasManifest, err := ReadManifest(st.dir)
	if err != nil {
		return err
	}
	if !hasManifest {
		if _, err := os.Stat(filepath.Join(st.dir, filepath.FromSlash(MarketplacePath))); err == nil {
			return fmt.Errorf("%w: add it with agent plugin marketplace add, then install NAME@MARKETPLACE", errMarketplace)
		}
		found := false
		for _, c := range []string{"commands", "agents", "skills", filepath.Join("hooks", "hooks.json"), ".mcp.json", "SKILL.md"} {
			if _, err := os.Stat(filepath.Join(st.dir, c)); err == nil {
				found = true
			}
		}
		if !found && len(rec.Entry) == 0 {
			return fmt.Errorf("not a plugin: no %s, commands/, agents/, skills/, hooks/hooks.json or .mcp.json", ManifestPath)
		}
	}
	st.Record = rec
	st.Plugin = Load(st.dir, rec)
	if st.Record.Version == "" {
		st.Record.Version = st.Plugin.Version
	}
	if _, err := os.Stat(st.store.pluginDir(rec.Name, rec.Marketplace)); err == nil {
		st.Replaces = true
	}
	return nil
}

// Contents is Plugin.Contents with the staging area's paths shown where
// the plugin will be installed.
func (st *Staged) Contents() []string {
	final := st.store.pluginDir(st.Record.Name, st.Record.Marketplace)
	lines := st.Plugin.Contents()
	for i, l := range lines {
		lines[i] = strings.ReplaceAll(l, st.dir, final)
	}
	return lines
}

// Warnings are Plugin.Warnings with the staging area's paths shown where
// the plugin will be installed.
func (st *Staged) Warnings() []string {
	final := st.store.pluginDir(st.Record.Name, st.Record.Marketplace)
	var out []string
	for _, w := range st.Plugin.Warnings {
		out = append(out, strings.ReplaceAll(w, st.dir, final))
	}
	return out
}

// Commit installs the staged plugin: its copy moves into the store (in
// place of an earlier one of the same id) and the registry records it.
// It returns the record kept.
func (st *Staged) Commit() (Record, error) {
	defer st.Discard()
	rec := st.Record
	rec.InstalledAt = time.Now().UTC()
	final := st.store.pluginDir(rec.Name, rec.Marketplace)
	err := st.store.update(func(r *registry) error {
		if old, ok := r.Plugins[rec.ID()]; ok {
			rec.Enabled = old.Enabled
		}
		if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
			return err
		}
		if _, err := os.Stat(final); err == nil {
			if err := os.Rename(final, filepath.Join(st.tmp, "old")); err != nil {
				return err
			}
		}
		if err := os.Rename(st.dir, final); err != nil {
			return err
		}
		r.Plugins[rec.ID()] = rec
		return nil
	})
	return rec, err
}

// Discard removes the staging area; after Commit it does nothing.
func (st *Staged) Discard() {
	if st.tmp != "" {
		os.RemoveAll(st.tmp)
	}
}
