package plugin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// MarketplacePath is where a marketplace lists its plugins, relative to
// its root (Claude Code's "Plugin marketplaces").
const MarketplacePath = ".claude-plugin/marketplace.json"

// Marketplace is what agent reads of a marketplace.json: its name, the
// base of its plugins' bare source names, and its entries.
type Marketplace struct {
	Name    string
	Plugins []Entry
	// pluginRoot is metadata.pluginRoot: where a source written as a bare
	// name ("formatter", not "./formatter") lies.
	pluginRoot string
}

// Entry is one plugin of a marketplace.
type Entry struct {
	Name        string
	Description string
	Version     string
	Source      EntrySource
	// Strict false makes the entry the plugin's whole definition; nil is
	// Claude Code's default, true (the entry adds to plugin.json).
	Strict *bool
	// Raw is the entry as written, kept in the registry for its component
	// fields.
	Raw json.RawMessage
}

// EntrySource is an entry's source: a path inside the marketplace
// (Path), or a git repository (Repo, a URL) at Ref and SHA, optionally a
// directory inside it (Sub, Claude Code's git-subdir).
type EntrySource struct {
	Path          string
	Repo          string
	Ref, SHA, Sub string
}

// String says where the source is, for the registry and messages.
func (s EntrySource) String() string {
	if s.Repo == "" {
		return s.Path
	}
	out := s.Repo
	if s.Sub != "" {
		out += " (" + s.Sub + ")"
	}
	if r := cmpOr(s.SHA, s.Ref); r != "" {
		out += " at " + r
	}
	return out
}

// ParseMarketplace reads a marketplace.json: {"name", "metadata":
// {"pluginRoot"}, "plugins": [{"name", "source", "description",
// "version", "strict", ...}]}, where source is a relative path, or
// {"source": "github", "repo": "owner/repo"}, {"source": "url", "url"},
// {"source": "git-subdir", "url", "path"}, each with optional "ref" and
// "sha". Other kinds of source (npm, pip) are errors of their entry, named
// when that entry is installed; a file without a valid name is an error.
func ParseMarketplace(data []byte) (Marketplace, error) {
	var f struct {
		Name     string `json:"name"`
		Metadata struct {
			PluginRoot string `json:"pluginRoot"`
		} `json:"metadata"`
		Plugins []json.RawMessage `json:"plugins"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return Marketplace{}, err
	}
	if err := CheckName(f.Name); err != nil {
		return Marketplace{}, fmt.Errorf("marketplace %w", err)
	}
	if f.Name == LocalMarketplace {
		return Marketplace{}, fmt.Errorf("marketplace name %q is agent's own (plugins installed by themselves)", f.Name)
	}
	m := Marketplace{Name: f.Name, pluginRoot: f.Metadata.PluginRoot}
	for i, raw := range f.Plugins {
		var e struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Version     string          `json:"version"`
			Strict      *bool           `json:"strict"`
			Source      json.RawMessage `json:"source"`
		}
		if err := json.Unmarshal(raw, &e); err != nil {
			return Marketplace{}, fmt.Errorf("plugins[%d]: %w", i, err)
		}
		m.Plugins = append(m.Plugins, Entry{Name: e.Name, Description: e.Description, Version: e.Version, Strict: e.Strict, Raw: raw,
			Source: parseSource(e.Source)})
	}
	return m, nil
}

// parseSource reads an entry's source; one agent cannot fetch has neither
// Path nor Repo.
func parseSource(raw json.RawMessage) EntrySource {
	var path string
	if json.Unmarshal(raw, &path) == nil {
		return EntrySource{Path: path}
	}
	var o struct {
		Source string `json:"source"`
		Repo   string `json:"repo"`
		URL    string `json:"url"`
		Path   string `json:"path"`
		Ref    string `json:"ref"`
		SHA    string `json:"sha"`
	}
	if json.Unmarshal(raw, &o) != nil {
		return EntrySource{}
	}
	s := EntrySource{Ref: o.Ref, SHA: o.SHA}
	switch o.Source {
	case "github":
		if githubShorthand().MatchString(o.Repo) {
			s.Repo = "https://github.com/" + strings.TrimSuffix(o.Repo, ".git") + ".git"
		}
	case "url", "git":
		s.Repo = o.URL
	case "git-subdir":
		s.Repo, s.Sub = o.URL, o.Path
	}
	return s
}

// AddMarketplace adds the marketplace source names: a marketplace.json
// file, a directory holding .claude-plugin/marketplace.json (both read
// where they are), or a git repository's URL (cloned into the store;
// adding it again fetches it anew). It returns the marketplace's record
// and content.
func (s *Store) AddMarketplace(ctx context.Context, source, cwd string) (MarketplaceRecord, Marketplace, error) {
	rec := MarketplaceRecord{Source: source, AddedAt: time.Now().UTC()}
	p := source
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	var tmp string
	if fi, err := os.Stat(p); err == nil {
		if fi.IsDir() {
			p = filepath.Join(p, filepath.FromSlash(MarketplacePath))
		}
		rec.Source, rec.File = p, p
	} else {
		o, err := locate(source, cwd)
		if err != nil {
			return rec, Marketplace{}, err
		}
		if tmp, err = os.MkdirTemp(s.stagingDir(), "marketplace-*"); err != nil {
			return rec, Marketplace{}, err
		}
		defer os.RemoveAll(tmp)
		if _, err := clone(ctx, o.git, "", "", filepath.Join(tmp, "repo")); err != nil {
			return rec, Marketplace{}, o.cloneError(err)
		}
		rec.Source, rec.Git, rec.File = o.git, true, filepath.Join(tmp, "repo", filepath.FromSlash(MarketplacePath))
	}
	m, err := readMarketplace(rec.File)
	if err != nil {
		return rec, Marketplace{}, err
	}
	rec.Name = m.Name
	if rec.Git {
		rec.File = filepath.Join(s.Dir, "marketplaces", m.Name, filepath.FromSlash(MarketplacePath))
	}
	rec.Root = marketplaceRoot(rec.File)
	err = s.update(func(r *registry) error {
		if old, ok := r.Marketplaces[m.Name]; ok && old.Source != rec.Source {
			return fmt.Errorf("a marketplace %s is added already, from %s: remove it first (agent plugin marketplace remove %s)", m.Name, old.Source, m.Name)
		}
		if rec.Git {
			dir := filepath.Join(s.Dir, "marketplaces", m.Name)
			if err := os.RemoveAll(dir); err != nil {
				return err
			}
			if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
				return err
			}
			if err := os.Rename(filepath.Join(tmp, "repo"), dir); err != nil {
				return err
			}
		}
		r.Marketplaces[m.Name] = rec
		return nil
	})
	return rec, m, err
}

// marketplaceRoot is the directory a marketplace's relative sources start
// from: the one holding .claude-plugin/, else the file's own.
func marketplaceRoot(file string) string {
	dir := filepath.Dir(file)
	if filepath.Base(dir) == ".claude-plugin" {
		return filepath.Dir(dir)
	}
	return dir
}

// readMarketplace reads and parses the marketplace file path.
func readMarketplace(path string) (Marketplace, error) {
	data, err := readSmall(path)
	if err != nil {
		return Marketplace{}, fmt.Errorf("marketplace: %w", err)
	}
	m, err := ParseMarketplace(data)
	if err != nil {
		return Marketplace{}, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// Marketplace returns the added marketplace name and its current content.
func (s *Store) Marketplace(name string) (MarketplaceRecord, Marketplace, error) {
	r, err := s.read()
	if err != nil {
		return MarketplaceRecord{}, Marketplace{}, err
	}
	rec, ok := r.Marketplaces[name]
	if !ok {
		return MarketplaceRecord{}, Marketplace{}, fmt.Errorf("no marketplace %s: add it with agent plugin marketplace add PATH|GITURL", name)
	}
	m, err := readMarketplace(rec.File)
	return rec, m, err
}

// RemoveMarketplace forgets the marketplace name (and removes its clone).
// The plugins installed from it stay installed; it returns their ids.
func (s *Store) RemoveMarketplace(name string) ([]string, error) {
	var kept []string
	err := s.update(func(r *registry) error {
		rec, ok := r.Marketplaces[name]
		if !ok {
			return fmt.Errorf("no marketplace %s", name)
		}
		delete(r.Marketplaces, name)
		for _, id := range slices.Sorted(maps.Keys(r.Plugins)) {
			if r.Plugins[id].Marketplace == name {
				kept = append(kept, id)
			}
		}
		if rec.Git {
			return os.RemoveAll(filepath.Join(s.Dir, "marketplaces", name))
		}
		return nil
	})
	return kept, err
}

// entryOrigin says where entry e of marketplace m (recorded as rec)
// comes from, and the directory inside it.
func entryOrigin(rec MarketplaceRecord, m Marketplace, e Entry) (origin, string, error) {
	switch src := e.Source; {
	case src.Repo != "":
		return origin{git: src.Repo}, src.Sub, nil
	case src.Path != "":
		rel := src.Path
		if !strings.HasPrefix(rel, "./") && !strings.HasPrefix(rel, "../") && m.pluginRoot != "" {
			rel = strings.TrimSuffix(m.pluginRoot, "/") + "/" + rel
		}
		if !strings.HasPrefix(rel, "./") {
			rel = "./" + rel
		}
		dir, err := resolveInside(rec.Root, rel)
		if err != nil {
			return origin{}, "", fmt.Errorf("plugin %s's source: %w", e.Name, err)
		}
		return origin{dir: dir}, "", nil
	}
	return origin{}, "", errors.New("its source is of a kind agent cannot fetch (a path in the marketplace, github, url and git-subdir are)")
}
