package skills

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-dev/agent/commands"
	"github.com/agent-dev/agent/tools"
)

// claudeSkills loads the published-format fixtures of testdata/claude.
func claudeSkills(t *testing.T) ([]Skill, []string) {
	t.Helper()
	return Load(Dir{Path: filepath.Join("testdata", "claude", "skills")})
}

// A name Claude Code accepts is the skill's name as written; its slash
// command is its folder's name.
func TestLenientNamesAndCommandsFromFolders(t *testing.T) {
	skills, _ := claudeSkills(t)
	names := map[string]string{}
	for _, s := range skills {
		names[s.Name] = s.Command
	}
	want := map[string]string{"Agent Development": "agent-development", "deploy": "deploy", "conventions": "conventions"}
	if len(names) != len(want) {
		t.Fatalf("skills %v, want %v", names, want)
	}
	for n, c := range want {
		if names[n] != c {
			t.Errorf("skill %q has command %q, want %q", n, names[n], c)
		}
	}
	res, err := Tool(skills).Run(context.Background(), tools.Call{Args: []byte(`{"name":"Agent Development"}`)})
	if err != nil || res.IsError || !strings.Contains(res.Content, "Create the agent") {
		t.Errorf("the skill tool by the name as given: %+v, %v", res, err)
	}
}

// /agent-development NAME PURPOSE sends the body with $ARGUMENTS[N] put
// in (from 0) and ${CLAUDE_SKILL_DIR} as the skill's folder; a skill that
// is not user-invocable is no command.
func TestSkillsAsCommands(t *testing.T) {
	skills, _ := claudeSkills(t)
	cmds, warnings := Commands(skills)
	if len(warnings) != 0 {
		t.Errorf("warnings %q", warnings)
	}
	var names []string
	for _, c := range cmds {
		names = append(names, c.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"agent-development", "deploy"}) {
		t.Fatalf("commands %q, want the user-invocable skills by folder", names)
	}
	set := commands.Set{Commands: cmds}
	e, ok := set.Expand(context.Background(), `/agent-development reviewer "review Go code"`)
	dir, _ := filepath.Abs(filepath.Join("testdata", "claude", "skills", "agent-development"))
	if !ok || !strings.Contains(e.Text, "Create the agent reviewer whose purpose is: review Go code.") ||
		!strings.Contains(e.Text, "Templates are in "+dir+"/templates.") || !strings.HasPrefix(e.Text, "Base directory for this skill: "+dir) {
		t.Errorf("expansion %q", e.Text)
	}
	if c := e.Command; c.ArgumentHint != "[agent-name] [purpose]" || !c.Skill || !slices.Equal(c.AllowedTools, []string{"Read", "Write"}) {
		t.Errorf("command %+v", c)
	}
}

// disable-model-invocation keeps a skill from the model (not listed, the
// tool refuses it) but the person still runs it; user-invocable: false
// is listed to the model. What cannot be honoured is named.
func TestInvocationControls(t *testing.T) {
	skills, warnings := claudeSkills(t)
	p := Prompt(skills)
	if strings.Contains(p, "deploy") || !strings.Contains(p, "- conventions: ") || !strings.Contains(p, "- Agent Development: ") {
		t.Errorf("prompt %q", p)
	}
	res, _ := Tool(skills).Run(context.Background(), tools.Call{Args: []byte(`{"name":"deploy"}`)})
	if !res.IsError || !strings.Contains(res.Content, "ask the user to run /deploy") {
		t.Errorf("the tool on a user-only skill: %+v", res)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "field context: fork not supported") || !strings.Contains(warnings[0], "field hooks not supported") {
		t.Errorf("warnings %q, want deploy's context and hooks named", warnings)
	}
	if !ModelInvocable(skills) || ModelInvocable(skills[1:2]) && skills[1].Name == "deploy" {
		t.Error("ModelInvocable")
	}
}
