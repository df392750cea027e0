// Package commands reads custom slash commands: Markdown files whose name
// is the command (review.md is /review; a sub-folder gives a namespace,
// frontend/component.md is /frontend:component), in Claude Code's format
// (docs.claude.com, "Slash commands"): optional front matter
// (description, argument-hint, allowed-tools, model, arguments), read as
// YAML (Fields), and a body that is the prompt, with $ARGUMENTS,
// $ARGUMENTS[N], $N and named arguments (Substitute), @path mentions and
// !`command` snippets whose output is put in their place before the
// prompt is sent. Skills (package skills) are invoked through the same Set.
package commands

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Command is one custom slash command.
type Command struct {
	// Name is the command without its slash: "review",
	// "frontend:component".
	Name string
	// Description is shown in completion and /help; without one in the
	// front matter, the body's first line.
	Description string
	// ArgumentHint is the front matter's argument-hint ("[file]").
	ArgumentHint string
	// AllowedTools are the front matter's allowed-tools: which !`command`
	// snippets may run (Bash, Bash(git status:*), Bash(git diff)).
	AllowedTools []string
	// Model is the front matter's model: the one turn the command starts asks it (see README).
	Model string
	// ArgumentNames are the front matter's arguments: a name for each
	// position, so that $name is that word of the arguments (Substitute).
	ArgumentNames []string
	// Dir is a skill's folder (${CLAUDE_SKILL_DIR}); "" for a command.
	Dir string
	// Skill is true for a skill invoked as a command (package skills).
	Skill bool
	// Body is the prompt before expansion.
	Body string
	// Path is the file it was read from; Project is true for a
	// repository's command.
	Path    string
	Project bool
}

// Dir is a directory of commands and whether it is a repository's.
type Dir struct {
	Path    string
	Project bool
	// Within, for a repository's, is the folder its command files must
	// lie in, symlinks resolved (the working directory); "" takes Path.
	// A file that is a symlink out of it is skipped with a warning.
	Within string
	// Namespace, when not "", starts the name of each command of Path
	// ("plugin" makes review.md /plugin:review): a plugin's commands.
	Namespace string
}

// maxFile caps a command file's size (256 KiB, as a skill's: published
// commands run past 64 KiB).
const maxFile = 256 << 10

// Load reads the commands (*.md, sub-folders as namespaces) of dirs in
// order; a name defined twice keeps its first definition, so list the
// project's directories first. A missing directory has none; a file that
// cannot be read or parsed is skipped and named among the warnings.
func Load(dirs ...Dir) (cmds []Command, warnings []string) {
	seen := map[string]bool{}
	for _, d := range dirs {
		within := ""
		if d.Project {
			within = RealPath(cmp.Or(d.Within, d.Path))
		}
		err := filepath.WalkDir(d.Path, func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				if !errors.Is(err, fs.ErrNotExist) {
					warnings = append(warnings, fmt.Sprintf("commands in %s: %v", path, err))
				}
				return nil
			}
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") {
				return nil
			}
			rel, _ := filepath.Rel(d.Path, path)
			name := strings.ReplaceAll(filepath.ToSlash(strings.TrimSuffix(rel, ".md")), "/", ":")
			if d.Namespace != "" {
				name = d.Namespace + ":" + name
			}
			if seen[name] {
				return nil
			}
			if d.Project && !Inside(within, path) {
				warnings = append(warnings, fmt.Sprintf("command %s: skipped: it leads outside %s (a symlink)", path, cmp.Or(d.Within, d.Path)))
				return nil
			}
			c, err := read(path)
			if err != nil {
				warnings = append(warnings, fmt.Sprintf("command %s: %v", path, err))
				return nil
			}
			c.Name, c.Path, c.Project = name, path, d.Project
			seen[name] = true
			cmds = append(cmds, c)
			return nil
		})
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("commands in %s: %v", d.Path, err))
		}
	}
	return cmds, warnings
}

// RealPath is path made absolute with its symlinks resolved; the absolute
// path when it cannot be resolved, path itself when not even that.
func RealPath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	return abs
}

// Inside reports whether path, its symlinks resolved, is or lies in
// within (a real path, as RealPath gives); a path that cannot be resolved
// does not.
func Inside(within, path string) bool {
	r, err := filepath.EvalSymlinks(path)
	if err != nil || within == "" {
		return false
	}
	rel, err := filepath.Rel(within, r)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func read(path string) (Command, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return Command{}, err
	}
	if fi.Size() > maxFile {
		return Command{}, fmt.Errorf("larger than %d KiB", maxFile>>10)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Command{}, err
	}
	return Parse(string(data))
}

// Parse reads a command file: front matter between two lines of "---"
// (see Fields; allowed-tools a list, or a string of names separated by
// commas or spaces), then the body. A file without front matter is all
// body.
func Parse(text string) (Command, error) {
	raw, body, err := FrontMatter(text)
	if err != nil {
		return Command{}, err
	}
	front, err := Fields(raw)
	if err != nil {
		return Command{}, err
	}
	c := Command{Description: String(front, "description"), ArgumentHint: Hint(front),
		AllowedTools: ToolList(front, "allowed-tools"), Model: String(front, "model"),
		ArgumentNames: List(front, "arguments"), Body: strings.TrimSpace(body)}
	if c.Description == "" {
		first, _, _ := strings.Cut(c.Body, "\n")
		c.Description = strings.TrimSpace(strings.TrimLeft(first, "# "))
		if len(c.Description) > 80 {
			c.Description = c.Description[:77] + "..."
		}
	}
	return c, nil
}

// FrontMatter splits text into its front matter (the lines between a first
// line of "---" and the next such line, trailing blanks allowed; "" when
// text does not start with one) and the rest.
func FrontMatter(text string) (front, body string, err error) {
	text = strings.ReplaceAll(strings.TrimPrefix(text, "\ufeff"), "\r\n", "\n")
	first, rest, _ := strings.Cut(text, "\n")
	if strings.TrimRight(first, " \t") != "---" {
		return "", text, nil
	}
	var lines []string
	for {
		line, more, found := strings.Cut(rest, "\n")
		if strings.TrimRight(line, " \t") == "---" {
			return strings.Join(lines, "\n"), more, nil
		}
		if !found {
			break
		}
		lines, rest = append(lines, line), more
	}
	return "", "", errors.New("the front matter does not end (no closing line of ---)")
}

// Hint is the front matter's argument-hint as the person reads it:
// "[file]", which YAML reads as a list of one, keeps its brackets.
func Hint(front map[string]any) string {
	v, _ := Get(front, "argument-hint")
	switch v.(type) {
	case []string, []any:
		return "[" + String(front, "argument-hint") + "]"
	}
	return String(front, "argument-hint")
}
