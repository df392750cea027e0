package plugin

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-dev/agent/commands"
	"github.com/agent-dev/agent/skills"
	"github.com/agent-dev/agent/subagent"
)

// Load reads the plugin installed at root as r records it: its manifest
// (merged with its marketplace entry's component fields, r.Entry), then
// its commands, agents, skills, hooks and MCP servers from the default
// places and the paths the manifest adds. Whatever fails is a warning
// naming the plugin and contributes nothing; a missing directory or an
// unreadable manifest leaves the plugin empty. Enabled is left false.
func Load(root string, r Record) Plugin {
	p := Plugin{Name: r.Name, Marketplace: r.Marketplace, Version: r.Version, Root: root}
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		p.warn("its installed copy %s is missing: install it again (agent plugin install)", root)
		return p
	}
	m, ok, err := ReadManifest(root)
	if err != nil {
		p.warn("%v", err)
		return p
	}
	if ok && m.Name != "" && m.Name != r.Name {
		p.warn("its plugin.json names it %q; agent names it %q, after its marketplace entry or directory", m.Name, r.Name)
	}
	p.Version, p.Description = cmpOr(m.Version, r.Version), m.Description
	if len(m.Unread) > 0 {
		p.warn("plugin.json fields not read by agent: %s", strings.Join(m.Unread, ", "))
	}
	if len(r.Entry) > 0 {
		e, err := ParseManifest(r.Entry)
		switch {
		case err != nil:
			p.warn("its marketplace entry: %v", err)
			return p
		case r.Strict != nil && !*r.Strict && m.declares():
			// Claude Code's strict mode off: the entry is the whole
			// definition, and a manifest that declares components too
			// is a conflict.
			p.warn("its marketplace entry has strict: false, yet its plugin.json declares components too; it is not loaded")
			return p
		case r.Strict != nil && !*r.Strict:
			m = Manifest{Name: m.Name, Version: m.Version, Description: m.Description}.merge(e)
		default:
			m = m.merge(e)
		}
		if p.Description == "" {
			p.Description = e.Description
		}
	}
	p.loadCommands(m)
	p.loadAgents(m)
	p.loadSkills(m)
	p.loadHooks(m)
	p.loadMCP(m)
	p.loadLSP(m)
	return p
}

// paths returns the existing files and directories of a component: the
// default place def (when it exists) and the manifest's extra paths (each
// of which must exist), each once.
func (p *Plugin) paths(field, def string, extra []string) []string {
	var out []string
	if _, err := os.Stat(filepath.Join(p.Root, def)); err == nil {
		out = append(out, filepath.Join(p.Root, def))
	}
	for _, e := range extra {
		path, err := resolve(p.Root, e)
		if err != nil {
			p.warn("plugin.json %s: %v", field, err)
			continue
		}
		if _, err := os.Stat(path); err != nil {
			p.warn("plugin.json %s: %q: %v", field, e, errors.Unwrap(err))
			continue
		}
		if !slices.Contains(out, path) {
			out = append(out, path)
		}
	}
	return out
}

// expand puts the plugin's directory in place of ${CLAUDE_PLUGIN_ROOT}.
func (p *Plugin) expand(s string) string { return strings.ReplaceAll(s, rootRef, p.Root) }

// loadCommands reads the plugin's commands: commands/ and the manifest's
// paths (directories, or Markdown files), each named PLUGIN:NAME, with
// ${CLAUDE_PLUGIN_ROOT} expanded in their bodies and allowed-tools.
func (p *Plugin) loadCommands(m Manifest) {
	seen := map[string]bool{}
	for _, path := range p.paths("commands", "commands", m.Commands) {
		var cmds []commands.Command
		if isDir(path) {
			var warnings []string
			cmds, warnings = commands.Load(commands.Dir{Path: path})
			p.addWarnings(warnings)
		} else {
			c, err := readCommand(path)
			if err != nil {
				p.warn("command %s: %v", path, err)
				continue
			}
			cmds = []commands.Command{c}
		}
		for _, c := range cmds {
			c.Name = p.Name + ":" + c.Name
			if seen[c.Name] {
				p.warn("command /%s defined twice; the first (%s) is kept", c.Name, c.Path)
				continue
			}
			seen[c.Name] = true
			c.Body = p.expand(c.Body)
			for i := range c.AllowedTools {
				c.AllowedTools[i] = p.expand(c.AllowedTools[i])
			}
			p.Commands = append(p.Commands, c)
		}
	}
}

// readCommand reads one command file, named after it.
func readCommand(path string) (commands.Command, error) {
	data, err := readSmall(path)
	if err != nil {
		return commands.Command{}, err
	}
	c, err := commands.Parse(string(data))
	if err != nil {
		return commands.Command{}, err
	}
	c.Name, c.Path = strings.TrimSuffix(filepath.Base(path), ".md"), path
	return c, nil
}

// loadAgents reads the plugin's agents: agents/ and the manifest's paths
// (directories, or Markdown files), each named PLUGIN:NAME, with
// ${CLAUDE_PLUGIN_ROOT} expanded in their prompts.
func (p *Plugin) loadAgents(m Manifest) {
	seen := map[string]bool{}
	for _, path := range p.paths("agents", "agents", m.Agents) {
		var agents []subagent.Agent
		if isDir(path) {
			var warnings []string
			agents, warnings = subagent.Load(path)
			p.addWarnings(warnings)
		} else {
			data, err := readSmall(path)
			if err == nil {
				var a subagent.Agent
				if a, err = subagent.Parse(string(data)); err == nil {
					a.Path = path
					agents = []subagent.Agent{a}
				}
			}
			if err != nil {
				p.warn("agent definition %s: %v", path, err)
				continue
			}
		}
		for _, a := range agents {
			a.Name = p.Name + ":" + a.Name
			if seen[a.Name] {
				continue
			}
			seen[a.Name] = true
			a.Prompt = p.expand(a.Prompt)
			p.Agents = append(p.Agents, a)
		}
	}
}

// loadSkills reads the plugin's skills: the folders of skills/ and of the
// manifest's paths (a directory of skill folders, or one skill's folder),
// and a SKILL.md at the plugin's root. A plugin's skill is named
// PLUGIN:FOLDER, after its folder as Claude Code names it (its front
// matter's name is a display name there, "Writing Rules" say); its
// description is required.
func (p *Plugin) loadSkills(m Manifest) {
	seen := map[string]bool{}
	var folders []string
	for _, path := range p.paths("skills", "skills", m.Skills) {
		if _, err := os.Stat(filepath.Join(path, "SKILL.md")); err == nil {
			folders = append(folders, path)
			continue
		}
		entries, err := os.ReadDir(path)
		if err != nil {
			p.warn("skills in %s: %v", path, err)
			continue
		}
		for _, e := range entries {
			if dir := filepath.Join(path, e.Name()); isDir(dir) {
				if _, err := os.Stat(filepath.Join(dir, "SKILL.md")); err == nil {
					folders = append(folders, dir)
				}
			}
		}
	}
	if _, err := os.Stat(filepath.Join(p.Root, "SKILL.md")); err == nil {
		folders = append(folders, p.Root)
	}
	for _, dir := range folders {
		name := filepath.Base(dir)
		if dir == p.Root {
			name = p.Name
		}
		s, warnings, ok := skills.ReadFolder(dir, p.Name+":"+name)
		p.addWarnings(warnings)
		if !ok {
			continue
		}
		if seen[s.Name] {
			continue
		}
		seen[s.Name] = true
		p.Skills = append(p.Skills, s)
	}
}

// addWarnings adds a loader's warnings, each naming the plugin.
func (p *Plugin) addWarnings(warnings []string) {
	for _, w := range warnings {
		p.warn("%s", w)
	}
}

// maxComponentFile caps a file the package reads itself (1 MiB).
const maxComponentFile = 1 << 20

// readSmall reads a component file of at most maxComponentFile bytes.
func readSmall(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	if fi.Size() > maxComponentFile {
		return nil, errors.New("larger than 1 MiB")
	}
	return os.ReadFile(path)
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
