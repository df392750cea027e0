package host

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/BurntSushi/toml"

	"github.com/agent-dev/agent/commands"
	"github.com/agent-dev/agent/hooks"
	"github.com/agent-dev/agent/skills"
)

// projectHooksFile is where a repository defines hooks in the agent's own
// format ([[hooks.EVENT]], as the config file).
const projectHooksFile = ".agent/hooks.toml"

// extensions is what a run reads of the files people write to shape the
// agent: hooks, custom slash commands and skills, each with where it came
// from, loaded once when the agent is built.
type extensions struct {
	hooks    []hooks.Hook
	commands []commands.Command
	skills   []skills.Skill
	// warnings are the problems met while reading them, one line each.
	warnings []string
}

// loadExtensions reads the hooks, commands and skills of a run in dir
// with settings s: the project's first (.agent, then .claude), then the
// user's (the agent's config directory, then ~/.claude). The skills the
// person may invoke join the commands (mergeCommands). Hooks come from
// the config file's [[hooks.EVENT]], ~/.claude/settings.json, and the
// project's .claude/settings.json, .claude/settings.local.json and
// .agent/hooks.toml (the project's run only once trusted).
func loadExtensions(dir string, s Settings) extensions {
	var e extensions
	home, _ := os.UserHomeDir()
	userDir := ""
	if s.ConfigPath != "" {
		userDir = filepath.Dir(s.ConfigPath)
	}
	e.hooks = append(e.hooks, s.Hooks...)
	claude := []struct {
		path    string
		project bool
	}{
		{filepath.Join(dir, ".claude", "settings.json"), true},
		{filepath.Join(dir, ".claude", "settings.local.json"), true},
	}
	if home != "" {
		claude = append([]struct {
			path    string
			project bool
		}{{filepath.Join(home, ".claude", "settings.json"), false}}, claude...)
	}
	for _, c := range claude {
		hs, warnings, err := hooks.LoadClaude(c.path, c.project)
		if err != nil {
			e.warnings = append(e.warnings, "hooks: "+err.Error())
		}
		e.warnings = append(e.warnings, warnings...)
		e.hooks = append(e.hooks, hs...)
	}
	hs, err := loadProjectHooks(filepath.Join(dir, projectHooksFile))
	if err != nil {
		e.warnings = append(e.warnings, "hooks: "+err.Error())
	}
	e.hooks = append(e.hooks, hs...)

	cdirs := []commands.Dir{{Path: filepath.Join(dir, ".agent", "commands"), Project: true, Within: dir}, {Path: filepath.Join(dir, ".claude", "commands"), Project: true, Within: dir}}
	sdirs := []skills.Dir{{Path: filepath.Join(dir, ".agent", "skills"), Project: true, Within: dir}, {Path: filepath.Join(dir, ".claude", "skills"), Project: true, Within: dir}}
	if userDir != "" {
		cdirs = append(cdirs, commands.Dir{Path: filepath.Join(userDir, "commands")})
		sdirs = append(sdirs, skills.Dir{Path: filepath.Join(userDir, "skills")})
	}
	if home != "" {
		cdirs = append(cdirs, commands.Dir{Path: filepath.Join(home, ".claude", "commands")})
		sdirs = append(sdirs, skills.Dir{Path: filepath.Join(home, ".claude", "skills")})
	}
	cmds, warnings := commands.Load(cdirs...)
	e.warnings = append(e.warnings, warnings...)
	e.skills, warnings = skills.Load(sdirs...)
	e.warnings = append(e.warnings, warnings...)
	skillCmds, warnings := skills.Commands(e.skills)
	e.warnings = append(e.warnings, warnings...)
	e.commands, warnings = mergeCommands(skillCmds, cmds)
	e.warnings = append(e.warnings, warnings...)
	return e
}

// mergeCommands are the slash commands of a run: the skills' first, since
// a skill wins over a command of the same name as in Claude Code
// (code.claude.com, "Agent Skills"), then the commands; a command a skill
// hides is named among the warnings.
func mergeCommands(skillCmds, cmds []commands.Command) ([]commands.Command, []string) {
	out := slices.Clone(skillCmds)
	var warnings []string
	for _, c := range cmds {
		i := slices.IndexFunc(skillCmds, func(s commands.Command) bool { return s.Name == c.Name })
		if i >= 0 {
			warnings = append(warnings, fmt.Sprintf("command /%s (%s) is not used: skill %s (%s) has its name, and a skill wins", c.Name, c.Path, c.Name, skillCmds[i].Path))
			continue
		}
		out = append(out, c)
	}
	return out, warnings
}

// loadProjectHooks reads a repository's .agent/hooks.toml; a missing file
// has none.
func loadProjectHooks(path string) ([]hooks.Hook, error) {
	var f struct {
		Hooks map[string][]hooks.TOML `toml:"hooks"`
	}
	if _, err := os.Stat(path); err != nil {
		return nil, nil
	}
	if _, err := toml.DecodeFile(path, &f); err != nil {
		return nil, err
	}
	hs, err := hooks.FromTOML(f.Hooks, path, true)
	if err != nil {
		return nil, err
	}
	return hs, nil
}
