// Package skills reads skills, in Claude Code's format (docs.claude.com,
// "Agent Skills"): a folder holding SKILL.md, whose front matter gives the
// skill's name and description and whose body is its instructions, and
// any files beside it. Only the names and descriptions go into a session's
// first request (Prompt); the model loads a skill's instructions with the
// skill tool (Tool), and reads the files of the skill's folder with
// read_file (Dirs gives the folders it may read).
package skills

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/agent-dev/agent/commands"
)

// Skill is one skill.
type Skill struct {
	// Name is how the skill tool names it: lowercase letters, digits and
	// hyphens (the folder's name when the front matter has none).
	Name string
	// Description says what the skill does and when to use it; it is
	// what the model sees before loading the skill.
	Description string
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
}

// Limits of a skill's files (Claude Code's: a name of 64 characters, a
// description of 1,024).
const (
	maxName        = 64
	maxDescription = 1024
	maxFile        = 256 << 10
)

var validName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// Load reads the skills of dirs (each sub-folder holding a SKILL.md), in
// order; a name found twice keeps its first skill, so list the project's
// directories first. A missing directory has none; a SKILL.md that cannot
// be read or lacks a description is skipped and named among the
// warnings.
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
			dir := filepath.Join(d.Path, e.Name())
			if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
				continue
			}
			path := filepath.Join(dir, "SKILL.md")
			within := ""
			if d.Project {
				within = commands.RealPath(orPath(d.Within, d.Path))
				if !commands.Inside(within, path) {
					if _, err := os.Stat(path); err == nil {
						warnings = append(warnings, fmt.Sprintf("skill %s: skipped: it leads outside %s (a symlink)", path, orPath(d.Within, d.Path)))
					}
					continue
				}
			}
			s, _, err := read(path)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				warnings = append(warnings, fmt.Sprintf("skill %s: %v", path, err))
				continue
			}
			if s.Name == "" {
				s.Name = e.Name()
			}
			if !validName.MatchString(s.Name) || len(s.Name) > maxName {
				warnings = append(warnings, fmt.Sprintf("skill %s: name %q: use lowercase letters, digits and hyphens (at most %d)", path, s.Name, maxName))
				continue
			}
			if seen[s.Name] {
				continue
			}
			abs, _ := filepath.Abs(dir)
			s.Dir, s.Path, s.Project, s.within = abs, filepath.Join(abs, "SKILL.md"), d.Project, within
			seen[s.Name] = true
			skills = append(skills, s)
		}
	}
	return skills, warnings
}

// read reads a SKILL.md: its skill (name and description) and its body.
func read(path string) (Skill, string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return Skill{}, "", err
	}
	if fi.Size() > maxFile {
		return Skill{}, "", fmt.Errorf("larger than %d KiB", maxFile>>10)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Skill{}, "", err
	}
	front, body, err := commands.FrontMatter(string(data))
	if err != nil {
		return Skill{}, "", err
	}
	f, err := commands.Fields(front)
	if err != nil {
		return Skill{}, "", err
	}
	s := Skill{Name: strings.TrimSpace(commands.String(f, "name")), Description: strings.Join(strings.Fields(commands.String(f, "description")), " ")}
	if s.Description == "" {
		return Skill{}, "", errors.New("no description in the front matter")
	}
	if len(s.Description) > maxDescription {
		s.Description = s.Description[:maxDescription-3] + "..."
	}
	return s, strings.TrimSpace(body), nil
}

// Body reads the skill's instructions (SKILL.md without its front matter)
// now, so that an edit made during a session counts.
func (s Skill) Body() (string, error) {
	if s.Project && !commands.Inside(s.within, s.Path) {
		return "", fmt.Errorf("%s leads outside the repository (a symlink)", s.Path)
	}
	_, body, err := read(s.Path)
	return body, err
}

// Prompt is the system prompt's section that lists the skills by name and
// description; "" without skills.
func Prompt(skills []Skill) string {
	if len(skills) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n\n<skills>\nWhen a task matches a skill, load it with the skill tool first:\n")
	for _, s := range skills {
		fmt.Fprintf(&b, "- %s: %s\n", s.Name, s.Description)
	}
	b.WriteString("</skills>")
	return b.String()
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

func orPath(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
