package tui

import (
	"strings"
	"testing"

	"github.com/agent-dev/agent/providers/fake"
)

// /help's text and the completion of a slash word come from one table:
// the built-in commands in their order, then the custom ones (a custom
// one named like a built-in left out), then those Config.MoreCommands
// lists; both are pinned by a golden file.
func TestHelpAndCompletionComeFromTheCommandTable(t *testing.T) {
	cfg := config(t, fake.New(), t.TempDir(), nil)
	cfg.Commands = []CustomCommand{{Name: "review", ArgumentHint: "[file]", Description: "Review a file carefully"},
		{Name: "help", Description: "shadowed by the built-in"}, {Name: "frontend:component", Description: "Make a component"}}
	cfg.MoreCommands = func() []CustomCommand {
		return []CustomCommand{{Name: "mcp__docs__search", ArgumentHint: "QUERY", Description: "Search the docs"}}
	}
	d := newDriver(t, cfg)
	cmds := d.m.commands()
	out := commandHelp(cmds) + "\n---\n" + strings.Join(completionHints(goldenStyles(), completions(cmds, "/"), 100), "\n") +
		"\n---\n" + strings.Join(completionHints(goldenStyles(), completions(cmds, "/co"), 60), "\n") +
		"\n---\n" + complete(cmds, "/rev") + "|" + complete(cmds, "/mc") + "|" + complete(cmds, "/he")
	requireGolden(t, "commands_help_and_completion", out)
}

// Every entry of the table runs: a built-in command's run is set, and
// dispatch finds each by its name, with its argument.
func TestEveryCommandDispatches(t *testing.T) {
	d := newDriver(t, config(t, fake.New(), t.TempDir(), nil))
	for _, c := range d.m.commands() {
		if c.run == nil {
			t.Errorf("%s has no run", c.name)
		}
		got, arg, ok := lookup(d.m.commands(), c.name+"  some  words ")
		if !ok || got.name != c.name || arg != "some  words" {
			t.Errorf("lookup(%s ...) = %s, %q, %v", c.name, got.name, arg, ok)
		}
	}
	if _, _, ok := lookup(d.m.commands(), "/nosuch"); ok {
		t.Error("an unknown command is found")
	}
}
