package host_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/providers/fake"
)

// /start foo runs the skill "start" as a command: its body, with the
// arguments put in, is the prompt; a command of the same name loses to
// the skill, with a warning; the skill is listed with the commands.
func TestSkillRunsAsASlashCommand(t *testing.T) {
	model := fake.New(fake.Text("started"))
	f := newFixture(t, model, "")
	write(t, f.path(".claude/skills/start/SKILL.md"), "---\nname: Start Work\ndescription: Start a piece of work\nargument-hint: [ticket]\n---\nStart ticket $ARGUMENTS[0] ($0), all: $ARGUMENTS.\n")
	write(t, f.path(".claude/commands/start.md"), "The command's body.\n")
	s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeAuto})
	runTurn(t, s, "/start foo")
	got := lastUser(model.Requests()[0])
	if !strings.Contains(got, "Start ticket foo (foo), all: foo.") || strings.Contains(got, "The command's body") || !strings.HasPrefix(got, "Base directory for this skill: ") {
		t.Errorf("the model got %q, want the skill's body with foo", got)
	}
	if w := strings.Join(s.Warnings(), "\n"); !strings.Contains(w, "command /start") || !strings.Contains(w, "a skill wins") {
		t.Errorf("warnings %q, want the hidden command named", w)
	}
	i := slices.IndexFunc(s.CustomCommands(), func(c host.Command) bool { return c.Name == "start" })
	if i < 0 || s.CustomCommands()[i].Hint != "[ticket]" || !strings.HasSuffix(s.CustomCommands()[i].Description, "(skill)") {
		t.Errorf("commands %+v", s.CustomCommands())
	}
}
