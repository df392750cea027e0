package skills

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/toolstest"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func fixture(t *testing.T) []Skill {
	project, user := t.TempDir(), t.TempDir()
	write(t, filepath.Join(project, "pdf", "SKILL.md"), "---\nname: pdf\ndescription: Fill PDF forms.\n  Use for any .pdf file.\n---\n# PDF\nRun forms.py first.\n")
	write(t, filepath.Join(project, "pdf", "forms.py"), "print(1)\n")
	write(t, filepath.Join(user, "pdf", "SKILL.md"), "---\nname: pdf\ndescription: the user's pdf\n---\nother")
	write(t, filepath.Join(user, "release", "SKILL.md"), "---\ndescription: Cut a release.\n---\nTag it.")
	write(t, filepath.Join(user, "broken", "SKILL.md"), "---\ndescription: x\ndescription: y\n---\nbody")
	write(t, filepath.Join(user, "notes", "README.md"), "not a skill")
	skills, warnings := Load(Dir{Path: project, Project: true}, Dir{Path: user}, Dir{Path: filepath.Join(user, "missing")})
	if len(skills) != 2 || skills[0].Name != "pdf" || !skills[0].Project || skills[1].Name != "release" {
		t.Fatalf("skills = %+v", skills)
	}
	if skills[0].Description != "Fill PDF forms. Use for any .pdf file." {
		t.Errorf("description = %q", skills[0].Description)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "broken") {
		t.Errorf("warnings = %q, want the skill whose front matter is broken", warnings)
	}
	return skills
}

func TestPromptListsNamesAndDescriptionsOnly(t *testing.T) {
	skills := fixture(t)
	p := Prompt(skills)
	if !strings.Contains(p, "- pdf: Fill PDF forms. Use for any .pdf file.") || !strings.Contains(p, "- release: Cut a release.") {
		t.Errorf("prompt = %q", p)
	}
	if strings.Contains(p, "forms.py") || strings.Contains(p, "Tag it") {
		t.Errorf("the prompt carries a skill's body: %q", p)
	}
	if Prompt(nil) != "" {
		t.Error("no skills should add nothing")
	}
}

func TestTheToolLoadsTheBodyAndListsTheFiles(t *testing.T) {
	skills := fixture(t)
	tl := Tool(skills)
	res, err := tl.Run(context.Background(), tools.Call{Args: []byte(`{"name":"pdf"}`)})
	if err != nil || res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
	if !strings.Contains(res.Content, "Run forms.py first.") || !strings.Contains(res.Content, filepath.Join(skills[0].Dir, "forms.py")) || strings.Contains(res.Content, "description:") {
		t.Errorf("result = %q", res.Content)
	}
	res, _ = tl.Run(context.Background(), tools.Call{Args: []byte(`{"name":"nope"}`)})
	if !res.IsError || !strings.Contains(res.Content, "pdf, release") {
		t.Errorf("unknown skill: %+v", res)
	}
}

func TestToolConformance(t *testing.T) {
	toolstest.Run(t, toolstest.Suite{Tool: Tool(fixture(t)), SchemaInvalid: []string{`{}`, `{"name":3}`}, BadArgs: []string{`{"name":"none"}`}})
}
