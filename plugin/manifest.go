package plugin

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// ManifestPath is where a plugin describes itself, relative to its root
// (Claude Code's "Plugins reference": the manifest is optional; without
// it the components are found in their default places and the name comes
// from the marketplace entry or the directory).
const ManifestPath = ".claude-plugin/plugin.json"

// Manifest is what agent reads of a plugin's .claude-plugin/plugin.json
// (Claude Code's "Plugins reference", "Plugin manifest schema"): the
// metadata, and the component path fields, which add to the default
// places (commands/, agents/, skills/, hooks/hooks.json, .mcp.json) and
// never replace them.
type Manifest struct {
	Name        string `json:"name"`
	Version     string `json:"version"`
	Description string `json:"description"`
	// Commands, Agents and Skills are paths relative to the plugin's
	// root, each "./"-prefixed: a directory, or a file (a command's or an
	// agent's Markdown, a skill's folder).
	Commands Paths `json:"commands"`
	Agents   Paths `json:"agents"`
	Skills   Paths `json:"skills"`
	// Hooks and MCPServers are a path (or several) to a JSON file, or the
	// configuration inline (an object).
	Hooks      Inline `json:"hooks"`
	MCPServers Inline `json:"mcpServers"`
	// LSPServers is the lspServers field: a path (or several) to a JSON
	// file of Claude Code's LSP server map, or the map inline.
	LSPServers Inline `json:"lspServers"`
	// Unread are the fields agent does not read (outputStyles, ...), sorted; metadata that changes nothing (author,
	// homepage, license, keywords) is not among them.
	Unread []string `json:"-"`
}

// Paths is a component path field: one path or a list of them.
type Paths []string

// UnmarshalJSON takes a string or an array of strings.
func (p *Paths) UnmarshalJSON(data []byte) error {
	var one string
	if json.Unmarshal(data, &one) == nil {
		*p = Paths{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(data, &many); err != nil {
		return errors.New("want a path or a list of paths")
	}
	*p = many
	return nil
}

// Inline is the hooks, mcpServers or lspServers field: paths to JSON files, or the
// configuration itself.
type Inline struct {
	Paths  Paths
	Object json.RawMessage
}

// UnmarshalJSON takes a path, a list of paths or an object.
func (in *Inline) UnmarshalJSON(data []byte) error {
	if t := strings.TrimSpace(string(data)); strings.HasPrefix(t, "{") {
		in.Object = append(json.RawMessage(nil), data...)
		return nil
	}
	if string(data) == "null" {
		return nil
	}
	if err := in.Paths.UnmarshalJSON(data); err != nil {
		return errors.New("want a path, a list of paths or an object")
	}
	return nil
}

// metadata are the manifest's (and a marketplace entry's) fields that
// describe a plugin without changing what it does.
var metadata = []string{"$schema", "name", "version", "description", "author", "homepage", "repository", "license",
	"keywords", "category", "tags", "displayName", "source", "strict", "commands", "agents", "skills", "hooks", "mcpServers", "lspServers"}

// ReadManifest reads root's .claude-plugin/plugin.json; ok is false when
// there is none. A file that is not a JSON object of the documented shape
// is an error naming it.
func ReadManifest(root string) (m Manifest, ok bool, err error) {
	p := filepath.Join(root, filepath.FromSlash(ManifestPath))
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return Manifest{}, false, nil
	}
	if err != nil {
		return Manifest{}, false, err
	}
	m, err = ParseManifest(data)
	if err != nil {
		return Manifest{}, false, fmt.Errorf("%s: %w", p, err)
	}
	return m, true, nil
}

// ParseManifest reads a plugin.json (or a marketplace entry, which has
// the same fields).
func ParseManifest(data []byte) (Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return Manifest{}, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return Manifest{}, err
	}
	for k := range fields {
		if !slices.Contains(metadata, k) {
			m.Unread = append(m.Unread, k)
		}
	}
	slices.Sort(m.Unread)
	return m, nil
}

// declares reports whether m names any component path.
func (m Manifest) declares() bool {
	return len(m.Commands)+len(m.Agents)+len(m.Skills)+len(m.Hooks.Paths)+len(m.MCPServers.Paths) > 0 ||
		m.Hooks.Object != nil || m.MCPServers.Object != nil
}

// merge adds other's component fields to m's (a marketplace entry's to a
// plugin's manifest, Claude Code's strict mode).
func (m Manifest) merge(other Manifest) Manifest {
	m.Commands = append(slices.Clone(m.Commands), other.Commands...)
	m.Agents = append(slices.Clone(m.Agents), other.Agents...)
	m.Skills = append(slices.Clone(m.Skills), other.Skills...)
	m.Hooks.Paths = append(slices.Clone(m.Hooks.Paths), other.Hooks.Paths...)
	m.MCPServers.Paths = append(slices.Clone(m.MCPServers.Paths), other.MCPServers.Paths...)
	if m.Hooks.Object == nil {
		m.Hooks.Object = other.Hooks.Object
	}
	if m.MCPServers.Object == nil {
		m.MCPServers.Object = other.MCPServers.Object
	}
	return m
}

// resolve returns the file path p (a component path field's value) names
// in root: it must be relative and start with "./" and may not climb out
// with "..", as Claude Code's "Path behavior rules" say.
func resolve(root, p string) (string, error) {
	if !strings.HasPrefix(p, "./") {
		return "", fmt.Errorf("path %q: must start with ./ (relative to the plugin's root)", p)
	}
	clean := path.Clean(p)
	if clean == ".." || strings.HasPrefix(clean, "../") || strings.Contains(p, `\`) {
		return "", fmt.Errorf("path %q: must stay inside the plugin", p)
	}
	return filepath.Join(root, filepath.FromSlash(clean)), nil
}

// resolveInside is resolve for a directory to copy: the path its symlinks
// lead to must lie in root's too, since the copy follows them (a
// marketplace's repository may commit a link to any directory of the
// person's).
func resolveInside(root, p string) (string, error) {
	dir, err := resolve(root, p)
	if err != nil {
		return "", err
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return dir, nil // missing: the caller says so
	}
	if rel, err := filepath.Rel(realRoot, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("path %q: must stay inside (a symlink leads it out to %s)", p, real)
	}
	return dir, nil
}
