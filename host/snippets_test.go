package host

import (
	"testing"

	"github.com/agent-dev/agent/commands"
	"github.com/agent-dev/agent/tools/shell/rules"
)

// A custom command's snippets are judged per simple command of the line:
// read-only lines need no allowed-tools entry (Anthropic's /commit runs
// git diff HEAD without listing it), a line whose every command
// allowed-tools or the person's rules allow is allowed, a denied command
// denies, an ask rule asks, anything else is asked about.
func TestSnippetJudge(t *testing.T) {
	set, err := rules.Compile([]string{"make"}, []string{"git push"})
	if err != nil {
		t.Fatal(err)
	}
	ask, err := rules.Compile(nil, []string{"git tag"})
	if err != nil {
		t.Fatal(err)
	}
	a := &agent{rules: set, allowCommands: []string{"make"}, denyCommands: []string{"git push"}, dir: t.TempDir(),
		claude: claudeSettings{asks: askRules{commands: ask}}}
	plugin := commands.Command{Name: "p:hello", AllowedTools: []string{"Bash(/opt/p/scripts/name.sh:*)"}}
	commit := commands.Command{Name: "commit", AllowedTools: []string{"Bash(git add:*)", "Bash(git status:*)", "Bash(git commit:*)"}}
	for _, tc := range []struct {
		cmd  commands.Command
		line string
		want commands.Verdict
	}{
		{commit, "git diff HEAD", commands.SnippetReadOnly},
		{commit, "git log --oneline -10 | head -3", commands.SnippetReadOnly},
		{commit, "git branch --show-current || echo detached", commands.SnippetReadOnly},
		{commit, "git add -A && git commit -m wip", commands.SnippetAllowed},
		{commit, "git add -A && rm -rf build", commands.SnippetAsk},
		{commit, "make test | tee out.log", commands.SnippetAsk},
		{commit, "make test && git status", commands.SnippetAllowed},
		{commit, "git push origin main", commands.SnippetDenied},
		{commit, "git status; git push", commands.SnippetDenied},
		{commit, "git tag v1", commands.SnippetAsk},
		{commands.Command{Name: "any", AllowedTools: []string{"Bash"}}, "rm -rf build", commands.SnippetAllowed},
		{commands.Command{Name: "none"}, "touch x", commands.SnippetAsk},
		{plugin, "/opt/p/scripts/name.sh --short", commands.SnippetAllowed},
		{plugin, "/opt/p/scripts/name.sh; rm -rf x", commands.SnippetAsk},
		// A prefix of allowed-tools allows a command's arguments, not a
		// write the checker sees (a redirection, find -delete, git's
		// --output), nor, for a program named by its path, a redirection
		// to a file.
		{commit, "git status > notes.txt", commands.SnippetAsk},
		{commands.Command{Name: "clean", AllowedTools: []string{"Bash(find:*)"}}, "find . -name '*.o' -delete", commands.SnippetAsk},
		{plugin, "/opt/p/scripts/name.sh > README.md", commands.SnippetAsk},
		{plugin, "/opt/p/scripts/name.sh 2> errors.log", commands.SnippetAsk},
	} {
		if got, why := a.snippetJudge()(tc.cmd, tc.line); got != tc.want {
			t.Errorf("/%s !`%s`: verdict %d (%s), want %d", tc.cmd.Name, tc.line, got, why, tc.want)
		}
	}
}
