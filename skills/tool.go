package skills

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/agent-dev/agent/commands"
	"github.com/agent-dev/agent/tools"
)

// ToolName is the name of the tool that loads a skill.
const ToolName = "skill"

// maxListed caps the files of a skill's folder the tool lists.
const maxListed = 100

type tool struct{ skills []Skill }

// Tool returns the skill tool over skills: given a skill's name it returns
// its instructions, its folder and the files in it (absolute paths that
// read_file reads). An unknown name is an error result that lists the
// skills.
func Tool(skills []Skill) tools.Tool { return tool{skills} }

var _ tools.Tool = tool{}

const schema = `{
  "type": "object",
  "properties": {"name": {"type": "string", "description": "the skill's name, as the system prompt's <skills> lists it"}},
  "required": ["name"],
  "additionalProperties": false
}`

func (t tool) Definition() tools.Definition {
	return tools.Definition{
		Name: ToolName,
		Description: "Load a skill's instructions.\n\n" +
			"Returns the skill's instructions, its folder and the files in it; read those files with read_file by their absolute paths when the instructions say so.",
		Schema:   json.RawMessage(schema),
		ReadOnly: true,
		Effects:  tools.ReadsWorkspace,
		Kind:     tools.KindRead,
		Summarize: func(args string) tools.Summary {
			var a struct {
				Name string `json:"name"`
			}
			_ = json.Unmarshal([]byte(args), &a)
			return tools.Summary{Title: "skill " + a.Name, Full: "skill " + a.Name}
		},
	}
}

func (t tool) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	var a struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(call.Args, &a); err != nil {
		return tools.Errorf("invalid arguments: %v", err), nil
	}
	s, ok := t.find(a.Name)
	switch {
	case !ok:
		return tools.Errorf("no skill %q; the skills are: %s", a.Name, strings.Join(t.names(), ", ")), nil
	case !s.ModelInvocable:
		return tools.Errorf("skill %s is the user's to run (disable-model-invocation): do not do its work yourself; ask the user to run /%s", s.Name, s.Command), nil
	}
	body, err := s.Body()
	if err != nil {
		return tools.Errorf("reading skill %s: %v", s.Name, err), nil
	}
	body = commands.Substitute(s.command(), body, "")
	var b strings.Builder
	fmt.Fprintf(&b, "Skill %s (folder %s):\n\n%s\n", s.Name, s.Dir, body)
	if files := listFiles(ctx, s.Dir); len(files) > 0 {
		b.WriteString("\nFiles of the skill (read them with read_file):\n")
		for _, f := range files {
			b.WriteString("- " + f + "\n")
		}
	}
	return tools.Result{Content: b.String(), Meta: map[string]any{"skill": s.Name, "dir": s.Dir}}, nil
}

// find returns the skill called name: by its name as written, else by its
// name in another case or its slash command's name.
func (t tool) find(name string) (Skill, bool) {
	name = strings.TrimSpace(name)
	for _, s := range t.skills {
		if s.Name == name {
			return s, true
		}
	}
	for _, s := range t.skills {
		if strings.EqualFold(s.Name, name) || strings.EqualFold(s.Command, strings.TrimPrefix(name, "/")) {
			return s, true
		}
	}
	return Skill{}, false
}

// names are the names of the skills the model may load.
func (t tool) names() []string {
	var out []string
	for _, s := range t.skills {
		if s.ModelInvocable {
			out = append(out, s.Name)
		}
	}
	return out
}

// listFiles lists the files of dir but SKILL.md, absolute, at most
// maxListed.
func listFiles(ctx context.Context, dir string) []string {
	var out []string
	// The trailing separator walks a folder that is a symlink (WalkDir
	// does not follow one otherwise); the paths below are cleaned.
	_ = filepath.WalkDir(dir+string(filepath.Separator), func(path string, e fs.DirEntry, err error) error {
		path = filepath.Clean(path)
		if err != nil || ctx.Err() != nil {
			return filepath.SkipDir
		}
		if e.IsDir() {
			if path != dir && strings.HasPrefix(e.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if path == filepath.Join(dir, "SKILL.md") {
			return nil
		}
		if len(out) == maxListed {
			out = append(out, "(more files not listed)")
			return filepath.SkipAll
		}
		out = append(out, path)
		return nil
	})
	return out
}
