package plugin

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// enabledIDs are the ids of the plugins Enabled returns for dir.
func enabledIDs(t *testing.T, s *Store, dir, home string) []string {
	t.Helper()
	ps, notes, err := s.Enabled(dir, home)
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) > 0 {
		t.Errorf("notes: %q", notes)
	}
	var ids []string
	for _, p := range ps {
		ids = append(ids, p.ID())
	}
	return ids
}

// An installed plugin is enabled; the person's disable in the registry
// turns it off, over ~/.claude/settings.json; a project's
// .claude/settings.json and .claude/settings.local.json decide in that
// project (local last), and name plugins that run only once installed.
func TestEnableDisableLayers(t *testing.T) {
	src, home, project := t.TempDir(), t.TempDir(), t.TempDir()
	writeTree(t, filepath.Join(src, "greet"), greetFiles())
	writeTree(t, filepath.Join(src, "wave"), map[string]string{"commands/wave.md": "Wave.\n"})
	s := NewStore(t.TempDir())
	install(t, s, "greet", src)
	install(t, s, "wave", src)
	if got := enabledIDs(t, s, project, home); !slices.Equal(got, []string{"greet@local", "wave@local"}) {
		t.Errorf("after install: %q", got)
	}
	writeTree(t, home, map[string]string{".claude/settings.json": `{"enabledPlugins": {"wave@local": false, "other@market": true}}`})
	if got := enabledIDs(t, s, project, home); !slices.Equal(got, []string{"greet@local"}) {
		t.Errorf("with ~/.claude/settings.json disabling wave: %q", got)
	}
	if _, err := s.SetEnabled("wave", true); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetEnabled("greet@local", false); err != nil {
		t.Fatal(err)
	}
	if got := enabledIDs(t, s, project, home); !slices.Equal(got, []string{"wave@local"}) {
		t.Errorf("after agent plugin enable wave, disable greet: %q", got)
	}
	if _, err := SetEnabledIn(project, ScopeProject, "greet@local", true); err != nil {
		t.Fatal(err)
	}
	if got := enabledIDs(t, s, project, home); !slices.Equal(got, []string{"greet@local", "wave@local"}) {
		t.Errorf("with the project enabling greet: %q", got)
	}
	if got := enabledIDs(t, s, t.TempDir(), home); !slices.Equal(got, []string{"wave@local"}) {
		t.Errorf("in another project: %q", got)
	}
	if _, err := SetEnabledIn(project, ScopeLocal, "greet@local", false); err != nil {
		t.Fatal(err)
	}
	if got := enabledIDs(t, s, project, home); !slices.Equal(got, []string{"wave@local"}) {
		t.Errorf("with settings.local.json disabling greet: %q", got)
	}
	l, err := s.List(project, home)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Plugins) != 2 || l.Plugins[0].Enabled || l.Plugins[0].EnabledBy != filepath.Join(project, ".claude", "settings.local.json") {
		t.Errorf("List: %+v", l.Plugins)
	}
	if len(l.Notes) != 1 || !strings.Contains(l.Notes[0], "enables other@market, which is not installed") {
		t.Errorf("List's notes %q, want the plugin the settings name that is not installed", l.Notes)
	}
	if _, err := s.Remove("wave"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(s.Dir, "installed", "local", "wave")); err == nil {
		t.Error("wave's copy is left after remove")
	}
	if got := enabledIDs(t, s, t.TempDir(), home); len(got) != 0 {
		t.Errorf("after removing wave, with greet disabled: %q", got)
	}
	if _, err := s.Remove("wave"); err == nil || !strings.Contains(err.Error(), "no installed plugin wave") {
		t.Errorf("removing it again: %v", err)
	}
}

// Writing a project's enable keeps the settings file's other settings.
func TestSetEnabledInKeepsOtherSettings(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{".claude/settings.json": `{"permissions": {"allow": ["Bash(ls)"]}, "enabledPlugins": {"a@m": true}}`})
	path, err := SetEnabledIn(dir, ScopeProject, "b@m", false)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	var got struct {
		Permissions struct{ Allow []string }
		Enabled     map[string]bool `json:"enabledPlugins"`
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Permissions.Allow, []string{"Bash(ls)"}) || !got.Enabled["a@m"] || got.Enabled["b@m"] || len(got.Enabled) != 2 {
		t.Errorf("settings after the write: %s", data)
	}
}

// Two installed plugins of one name are told apart by their marketplace;
// the name alone is ambiguous.
func TestFindNeedsTheMarketplaceWhenAmbiguous(t *testing.T) {
	root := t.TempDir()
	for _, m := range []string{"one", "two"} {
		writeTree(t, filepath.Join(root, m), map[string]string{
			"plugins/greet/commands/hi.md":    "Hi.\n",
			".claude-plugin/marketplace.json": `{"name": "` + m + `", "plugins": [{"name": "greet", "source": "./plugins/greet"}]}`,
		})
	}
	s := NewStore(t.TempDir())
	for _, m := range []string{"one", "two"} {
		if _, _, err := s.AddMarketplace(t.Context(), filepath.Join(root, m), "/"); err != nil {
			t.Fatal(err)
		}
		install(t, s, "greet@"+m, "/")
	}
	if _, err := s.Find("greet"); err == nil || !strings.Contains(err.Error(), "greet@one greet@two") {
		t.Errorf("Find(greet): %v", err)
	}
	if rec, err := s.Find("greet@two"); err != nil || rec.Marketplace != "two" {
		t.Errorf("Find(greet@two): %+v, %v", rec, err)
	}
}
