// Package skills reads skills, in Claude Code's format (code.claude.com,
// "Agent Skills"): a folder holding SKILL.md, whose front matter gives the
// skill's name, description and how it is invoked, and whose body is its
// instructions, and any files beside it. Only the names and descriptions
// go into a session's first request (Prompt); the model loads a skill's
// instructions with the skill tool (Tool), and reads the files of the
// skill's folder with read_file (Dirs gives the folders it may read). The
// person invokes a skill as a slash command named after its folder
// (/release), as a custom command (Commands).
package skills

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-dev/agent/commands"
)

// Skill is one skill.
type Skill struct {
	// Name is how the model and the skill tool name it: the front
	// matter's name, as written ("Agent Development" too), else the
	// folder's name.
	Name string
	// Command is its slash command's name, without the slash: the
	// folder's name (white space made "-"), as Claude Code names it,
	// after the directory's namespace ("plugin:name").
	Command string
	// Description says what the skill does and when to use it; it is
	// what the model sees before loading the skill. Without one in the
	// front matter, the body's first line.
	Description string
	// ArgumentHint, AllowedTools, Model and ArgumentNames are the front
	// matter's argument-hint, allowed-tools, model and arguments, used
	// when the person invokes it (see commands.Command).
	ArgumentHint  string
	AllowedTools  []string
	Model         string
	ArgumentNames []string
	// UserInvocable is false for user-invocable: false (no slash
	// command); ModelInvocable false for disable-model-invocation: true
	// (not listed to the model, and the skill tool refuses it).
	UserInvocable, ModelInvocable bool
	// Dir is the skill's folder, absolute; Path its SKILL.md.
	Dir, Path string
	// Project is true for a repository's skill.
	Project bool
	// within is the real path of the folder a repository's skill must
	// lie in, symlinks resolved ("" for the user's).
	within string
}

// Dir is a directory of skill folders and whether it is a repository's.
type Dir struct {
	Path    string
	Project bool
	// Within, for a repository's, is the folder its skills must lie in,
	// symlinks resolved (the working directory); "" takes Path. A skill
	// whose folder or SKILL.md leads out of it is skipped with a warning.
	Within string
	// Namespace, when not "", starts the names of its skills
	// ("plugin:release"): a plugin's skills.
	Namespace string
}

// Limits of a skill's files (Claude Code's description of 1,024
// characters).
const (
	maxDescription = 1024
	maxFile        = 256 << 10
)

// Load reads the skills of dirs (each sub-folder holding a SKILL.md), in
// order; a name or command found twice keeps its first skill, so list the
// project's directories first. A missing directory has none; a SKILL.md
// that cannot be read is skipped, and a front matter field this agent
// does not honour is named, each among the warnings (one line each).
func Load(dirs ...Dir) (skills []Skill, warnings []string) {
	seen := map[string]bool{}
	for _, d := range dirs {
		entries, err := os.ReadDir(d.Path)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				warnings = append(warnings, fmt.Sprintf("skills in %s: %v", d.Path, err))
			}
			continue
		}
		for _, e := range entries {
			s, warns, ok := loadOne(d, e.Name())
			warnings = append(warnings, warns...)
			if !ok || seen["n:"+s.Name] || seen["c:"+s.Command] {
				continue
			}
			seen["n:"+s.Name], seen["c:"+s.Command] = true, true
			skills = append(skills, s)
		}
	}
	return skills, warnings
}

// loadOne reads the skill in folder name of d; ok is false when there is
// none to use.
func loadOne(d Dir, name string) (s Skill, warnings []string, ok bool) {
	dir := filepath.Join(d.Path, name)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return s, nil, false
	}
	path := filepath.Join(dir, "SKILL.md")
	within := ""
	if d.Project {
		within = commands.RealPath(cmpOr(d.Within, d.Path))
		if !commands.Inside(within, path) {
			if _, err := os.Stat(path); err == nil {
				warnings = append(warnings, fmt.Sprintf("skill %s: skipped: it leads outside %s (a symlink)", path, cmpOr(d.Within, d.Path)))
			}
			return s, warnings, false
		}
	}
	s, _, unsupported, err := read(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil, false
	}
	if err != nil {
		return s, []string{fmt.Sprintf("skill %s: %v", path, err)}, false
	}
	s.Command = strings.Join(strings.Fields(name), "-")
	if s.Name == "" {
		s.Name = name
	}
	if d.Namespace != "" {
		s.Name, s.Command = d.Namespace+":"+s.Name, d.Namespace+":"+s.Command
	}
	if len(unsupported) > 0 {
		warnings = append(warnings, fmt.Sprintf("skill %s (%s): %s", s.Name, path, strings.Join(unsupported, "; ")))
	}
	abs, _ := filepath.Abs(dir)
	s.Dir, s.Path, s.Project, s.within = abs, filepath.Join(abs, "SKILL.md"), d.Project, within
	return s, warnings, true
}

// ReadFolder reads the skill in folder dir (its SKILL.md) as a plugin's
// skill named name (both its name and its slash command: Claude Code
// names a plugin's skills "PLUGIN:FOLDER"); ok is false when dir holds no
// SKILL.md or it cannot be read, which the warnings then say.
func ReadFolder(dir, name string) (s Skill, warnings []string, ok bool) {
	path := filepath.Join(dir, "SKILL.md")
	s, _, unsupported, err := read(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil, false
	}
	if err != nil {
		return s, []string{fmt.Sprintf("skill %s: %v", path, err)}, false
	}
	s.Name, s.Command = name, name
	if len(unsupported) > 0 {
		warnings = append(warnings, fmt.Sprintf("skill %s (%s): %s", s.Name, path, strings.Join(unsupported, "; ")))
	}
	abs, _ := filepath.Abs(dir)
	s.Dir, s.Path = abs, filepath.Join(abs, "SKILL.md")
	return s, warnings, true
}

// read reads a SKILL.md: its skill, its body, and what of its front
// matter this agent does not honour (one phrase per field).
func read(path string) (s Skill, body string, unsupported []string, err error) {
	fi, err := os.Stat(path)
	if err != nil {
		return s, "", nil, err
	}
	if fi.Size() > maxFile {
		return s, "", nil, fmt.Errorf("larger than %d KiB", maxFile>>10)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return s, "", nil, err
	}
	front, body, err := commands.FrontMatter(string(data))
	if err != nil {
		return s, "", nil, err
	}
	f, err := commands.Fields(front)
	if err != nil {
		return s, "", nil, err
	}
	body = strings.TrimSpace(body)
	s = Skill{Name: strings.Join(strings.Fields(commands.String(f, "name")), " "),
		Description:  strings.Join(strings.Fields(commands.String(f, "description")), " "),
		ArgumentHint: commands.Hint(f), AllowedTools: commands.ToolList(f, "allowed-tools"), Model: commands.String(f, "model"),
		ArgumentNames: commands.List(f, "arguments"), UserInvocable: true, ModelInvocable: true}
	if s.Description == "" {
		first, _, _ := strings.Cut(body, "\n")
		s.Description = strings.TrimSpace(strings.TrimLeft(first, "# "))
	}
	if len(s.Description) > maxDescription {
		s.Description = s.Description[:maxDescription-3] + "..."
	}
	if v, set, err := commands.Bool(f, "user-invocable"); err != nil {
		unsupported = append(unsupported, err.Error())
	} else if set {
		s.UserInvocable = v
	}
	if v, set, err := commands.Bool(f, "disable-model-invocation"); err != nil {
		unsupported = append(unsupported, err.Error())
	} else if set {
		s.ModelInvocable = !v
	}
	return s, body, append(unsupported, unsupportedFields(f)...), nil
}

// honoured are the front matter fields this agent reads, and those of the
// Agent Skills format that need nothing of it.
var honoured = []string{"name", "description", "argument-hint", "allowed-tools", "model", "arguments",
	"user-invocable", "disable-model-invocation", "license", "metadata", "version", "compatibility", "when-to-use"}

// unsupportedFields names the fields of f that this agent does not
// honour, and what happens instead.
func unsupportedFields(f map[string]any) []string {
	var out []string
	for k := range f {
		if slices.ContainsFunc(honoured, func(h string) bool { return commands.SameField(h, k) }) {
			continue
		}
		switch {
		case commands.SameField(k, "context"):
			if v := commands.String(f, k); v != "" && v != "inline" {
				out = append(out, fmt.Sprintf("field context: %s not supported: the skill runs in the conversation that invokes it, not in a subagent", v))
			}
		case commands.SameField(k, "agent"): // the subagent of context: fork, named with it
		default:
			out = append(out, fmt.Sprintf("field %s not supported", k))
		}
	}
	slices.Sort(out)
	return out
}

// Body reads the skill's instructions (SKILL.md without its front matter)
// now, so that an edit made during a session counts.
func (s Skill) Body() (string, error) {
	if s.Project && !commands.Inside(s.within, s.Path) {
		return "", fmt.Errorf("%s leads outside the repository (a symlink)", s.Path)
	}
	_, body, _, err := read(s.Path)
	return body, err
}

// command is s as a custom command, without its body.
func (s Skill) command() commands.Command {
	return commands.Command{Name: s.Command, Description: s.Description, ArgumentHint: s.ArgumentHint,
		AllowedTools: s.AllowedTools, Model: s.Model, ArgumentNames: s.ArgumentNames, Dir: s.Dir, Skill: true,
		Path: s.Path, Project: s.Project}
}

// Commands returns the skills the person may invoke (all but those with
// user-invocable: false) as custom commands named after their folders,
// each body read now and headed by the line Claude Code heads it with
// ("Base directory for this skill: DIR"), so that its arguments are put
// in and its !`command` snippets run as a command's are. A skill whose
// SKILL.md cannot be read now is named among the warnings.
func Commands(skills []Skill) (cmds []commands.Command, warnings []string) {
	for _, s := range skills {
		if !s.UserInvocable {
			continue
		}
		body, err := s.Body()
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("skill %s: %v", s.Path, err))
			continue
		}
		c := s.command()
		c.Body = "Base directory for this skill: " + s.Dir + "\n\n" + body
		cmds = append(cmds, c)
	}
	return cmds, warnings
}

// Prompt is the system prompt's section that lists the skills the model
// may load by name and description (not those with
// disable-model-invocation: true); "" without any.
func Prompt(skills []Skill) string {
	var b strings.Builder
	for _, s := range skills {
		if s.ModelInvocable {
			fmt.Fprintf(&b, "- %s: %s\n", s.Name, s.Description)
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "\n\n<skills>\nWhen a task matches a skill, load it with the skill tool first:\n" + b.String() + "</skills>"
}

// ModelInvocable reports whether any of skills is the model's to load
// (the skill tool is offered only then).
func ModelInvocable(skills []Skill) bool {
	return slices.ContainsFunc(skills, func(s Skill) bool { return s.ModelInvocable })
}

// Dirs returns the folders of the user's skills, which read_file may
// read although they lie outside the working directory. A repository's
// skills are not among them: they lie in the working directory, read
// through its root like any of its files.
func Dirs(skills []Skill) []string {
	var out []string
	for _, s := range skills {
		if !s.Project {
			out = append(out, s.Dir)
		}
	}
	return out
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
