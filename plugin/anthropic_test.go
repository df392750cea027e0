package plugin

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
)

// anthropicCounts is what each of Anthropic's bundled plugins contributes
// once installed (anthropics/claude-code at 5cfc0a19; the reproduction in
// testdata/claude-code-plugins has the same shape).
var anthropicCounts = map[string]string{
	"agent-sdk-dev":             "1 command, 2 agents",
	"claude-opus-4-5-migration": "1 skill",
	"code-review":               "1 command",
	"commit-commands":           "3 commands",
	"explanatory-output-style":  "1 hook",
	"feature-dev":               "1 command, 3 agents",
	"frontend-design":           "1 skill",
	"hookify":                   "4 commands, 1 agent, 1 skill, 4 hooks",
	"learning-output-style":     "1 hook",
	"plugin-dev":                "1 command, 3 agents, 7 skills",
	"pr-review-toolkit":         "1 command, 6 agents",
	"ralph-wiggum":              "3 commands, 1 hook",
	"security-guidance":         "3 hooks",
}

// anthropicWarnings are the warnings those plugins may give, each what
// agent does not do (the README's "Plugins" section lists them):
// security-guidance's hooks that run in the background (asyncRewake,
// some with an if condition) are skipped.
var anthropicWarnings = []*regexp.Regexp{
	regexp.MustCompile(`^plugin security-guidance@claude-code-plugins: \S+/hooks/hooks\.json: (PostToolUse|Stop) hook .* skipped: asyncRewake: agent does not run hooks in the background$`),
}

// installMarketplace adds the marketplace at dir to a new store, installs
// every plugin it lists, and checks each one's contributions and
// warnings against the tables above.
func installMarketplace(t *testing.T, dir string) {
	t.Helper()
	s := NewStore(t.TempDir())
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, m, err := s.AddMarketplace(context.Background(), abs, "/")
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Plugins) != len(anthropicCounts) {
		t.Errorf("the marketplace lists %d plugins, want %d", len(m.Plugins), len(anthropicCounts))
	}
	for _, e := range m.Plugins {
		rec := install(t, s, e.Name+"@"+m.Name, "/")
		p := s.Load(rec)
		if got, want := p.Counts(), anthropicCounts[e.Name]; got != want {
			t.Errorf("%s contributes %s, want %s", p.ID(), got, want)
		}
		for _, w := range p.Warnings {
			documented := false
			for _, re := range anthropicWarnings {
				documented = documented || re.MatchString(w)
			}
			if !documented {
				t.Errorf("an undocumented warning: %s", w)
			}
		}
		for _, h := range p.Hooks {
			if h.Plugin != p.ID() || !slices.Contains(h.Env, RootVar+"="+p.Root) {
				t.Errorf("%s's hook %+v: want it named after the plugin, with %s", p.ID(), h, RootVar)
			}
		}
	}
}

// Every plugin of the reproduction of Anthropic's marketplace installs
// and loads with no warning but the documented ones.
func TestAnthropicMarketplace(t *testing.T) {
	installMarketplace(t, filepath.Join("testdata", "claude-code-plugins"))
}

// The same check, on a checkout of anthropics/claude-code named by
// AGENT_CLAUDE_CODE_CHECKOUT (its files may not be redistributed, so
// none is in this repository).
func TestAnthropicCheckout(t *testing.T) {
	dir := os.Getenv("AGENT_CLAUDE_CODE_CHECKOUT")
	if dir == "" {
		t.Skip("AGENT_CLAUDE_CODE_CHECKOUT names no checkout of anthropics/claude-code")
	}
	installMarketplace(t, dir)
}
