package plugin

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A plugin installed from a directory is copied into the data directory
// whole (its scripts still executable), shown before it is installed with
// every hook's command and server's command line where they will run,
// and loads from there with its commands, agents and skills namespaced
// and ${CLAUDE_PLUGIN_ROOT} set.
func TestInstallFromDirectory(t *testing.T) {
	src := filepath.Join(t.TempDir(), "greet-src")
	writeTree(t, src, greetFiles())
	s := NewStore(t.TempDir())
	st, err := s.Stage(context.Background(), "greet-src", filepath.Dir(src))
	if err != nil {
		t.Fatal(err)
	}
	final := filepath.Join(s.Dir, "installed", LocalMarketplace, "greet")
	shown := strings.Join(st.Contents(), "\n")
	for _, want := range []string{"/greet:hello", "/greet:shout", "greet:reviewer", "greet:tester", "greet:style", "greet:tone",
		"UserPromptSubmit: " + final + "/scripts/x.sh",
		"plugin_greet_notes: " + final + "/bin/notes --data " + final + "/data",
		"plugin_greet_files: node " + final + "/files.js"} {
		if !strings.Contains(shown, want) {
			t.Errorf("what install shows lacks %q:\n%s", want, shown)
		}
	}
	if len(st.Warnings()) > 0 {
		t.Errorf("warnings: %q", st.Warnings())
	}
	if _, err := os.Stat(final); err == nil {
		t.Fatal("the plugin is installed before Commit")
	}
	rec, err := st.Commit()
	if err != nil {
		t.Fatal(err)
	}
	if rec.ID() != "greet@local" || rec.Version != "1.2.0" || rec.Source != src {
		t.Errorf("record %+v", rec)
	}
	if fi, err := os.Stat(filepath.Join(final, "scripts", "x.sh")); err != nil || fi.Mode().Perm()&0o100 == 0 {
		t.Errorf("the installed hook script: %v, %v (want it executable)", fi, err)
	}
	if left, _ := os.ReadDir(filepath.Join(s.Dir, "staging")); len(left) != 0 {
		t.Errorf("the staging area keeps %d entries", len(left))
	}
	p := s.Load(rec)
	cmds, agents, skills := names(p)
	if want := []string{"greet:hello", "greet:shout"}; !slices.Equal(cmds, want) {
		t.Errorf("commands %q, want %q", cmds, want)
	}
	if want := []string{"greet:reviewer", "greet:tester"}; !slices.Equal(agents, want) {
		t.Errorf("agents %q, want %q", agents, want)
	}
	if want := []string{"greet:style", "greet:tone"}; !slices.Equal(skills, want) {
		t.Errorf("skills %q, want %q", skills, want)
	}
	hello := p.Commands[0]
	if !strings.Contains(hello.Body, "from "+final+".") || !slices.Equal(hello.AllowedTools, []string{"Bash(" + final + "/scripts/name.sh:*)"}) {
		t.Errorf("/greet:hello: body %q, allowed-tools %q: want ${CLAUDE_PLUGIN_ROOT} expanded", hello.Body, hello.AllowedTools)
	}
	if !strings.Contains(p.Agents[0].Prompt, final+"/checklist.md") {
		t.Errorf("the agent's prompt %q: want ${CLAUDE_PLUGIN_ROOT} expanded", p.Agents[0].Prompt)
	}
	if len(p.Hooks) != 1 {
		t.Fatalf("hooks %+v", p.Hooks)
	}
	if h := p.Hooks[0]; h.Plugin != "greet@local" || h.Command != final+"/scripts/x.sh" || !slices.Contains(h.Env, RootVar+"="+final) || h.Project {
		t.Errorf("hook %+v", h)
	}
	notes := p.MCPServers["plugin_greet_notes"]
	if notes.Env[RootVar] != final || notes.Env["NOTES_HOME"] != final+"/data" || notes.Args[1] != final+"/data" {
		t.Errorf("the notes server %+v", notes)
	}
}

// A plugin installed from a git repository, by its path or a file://
// URL, is what is committed there, at the commit recorded.
func TestInstallFromGitRepository(t *testing.T) {
	repo := filepath.Join(t.TempDir(), "greet")
	writeTree(t, repo, greetFiles())
	head := gitRepo(t, repo)
	writeTree(t, repo, map[string]string{"commands/uncommitted.md": "not committed\n"})
	for _, source := range []string{repo, "file://" + repo} {
		s := NewStore(t.TempDir())
		rec := install(t, s, source, "/")
		if rec.Commit != head || rec.Source != source || rec.ID() != "greet@local" {
			t.Errorf("%s: record %+v, want commit %s", source, rec, head)
		}
		p := s.Load(rec)
		cmds, _, _ := names(p)
		if slices.Contains(cmds, "greet:uncommitted") || !slices.Contains(cmds, "greet:hello") {
			t.Errorf("%s: commands %q: want the committed ones only", source, cmds)
		}
		if _, err := os.Stat(filepath.Join(p.Root, ".git")); err == nil {
			t.Errorf("%s: the installed copy keeps .git", source)
		}
	}
}

// A marketplace added from its file lists plugins whose sources are
// paths in it, git repositories, or directories of a repository; an entry
// with strict false is the plugin's whole definition.
func TestInstallFromMarketplaceFile(t *testing.T) {
	root := t.TempDir()
	writeTree(t, filepath.Join(root, "market", "plugins", "greet"), greetFiles())
	repo := filepath.Join(root, "repo")
	writeTree(t, filepath.Join(repo, "tools", "wave"), map[string]string{"commands/wave.md": "Wave at $ARGUMENTS.\n"})
	gitRepo(t, repo)
	writeTree(t, filepath.Join(root, "market"), map[string]string{
		"plugins/bare/cmds/bow.md": "Bow.\n",
		".claude-plugin/marketplace.json": `{"name": "team", "owner": {"name": "T"}, "plugins": [
  {"name": "greet", "source": "./plugins/greet", "version": "1.2.0"},
  {"name": "wave", "source": {"source": "git-subdir", "url": "file://` + repo + `", "path": "tools/wave"}},
  {"name": "bare", "source": "./plugins/bare", "strict": false, "commands": ["./cmds/bow.md"]},
  {"name": "npm-one", "source": {"source": "npm", "package": "x"}}
]}`,
	})
	s := NewStore(t.TempDir())
	rec, m, err := s.AddMarketplace(context.Background(), filepath.Join(root, "market", ".claude-plugin", "marketplace.json"), "/")
	if err != nil {
		t.Fatal(err)
	}
	if rec.Name != "team" || len(m.Plugins) != 4 || rec.Root != filepath.Join(root, "market") {
		t.Fatalf("marketplace %+v, %d plugins", rec, len(m.Plugins))
	}
	greet := install(t, s, "greet@team", "/")
	if greet.ID() != "greet@team" || greet.Source != filepath.Join(root, "market", "plugins", "greet") {
		t.Errorf("greet's record %+v", greet)
	}
	wave := s.Load(install(t, s, "wave@team", "/"))
	if cmds, _, _ := names(wave); !slices.Equal(cmds, []string{"wave:wave"}) {
		t.Errorf("wave's commands %q (warnings %q)", cmds, wave.Warnings)
	}
	bare := s.Load(install(t, s, "bare@team", "/"))
	if cmds, _, _ := names(bare); !slices.Equal(cmds, []string{"bare:bow"}) || len(bare.Warnings) > 0 {
		t.Errorf("bare's commands %q, warnings %q", cmds, bare.Warnings)
	}
	if _, err := s.Stage(context.Background(), "npm-one@team", "/"); err == nil || !strings.Contains(err.Error(), "cannot fetch") {
		t.Errorf("an npm source: %v", err)
	}
	if _, err := s.Stage(context.Background(), "nothere@team", "/"); err == nil || !strings.Contains(err.Error(), "has no plugin nothere") {
		t.Errorf("an unknown plugin: %v", err)
	}
	if _, err := s.Stage(context.Background(), "greet@elsewhere", "/"); err == nil || !strings.Contains(err.Error(), "no marketplace elsewhere") {
		t.Errorf("an unknown marketplace: %v", err)
	}
	ids := []string{}
	recs, _ := s.Installed()
	for _, r := range recs {
		ids = append(ids, r.ID())
	}
	if want := []string{"bare@team", "greet@team", "wave@team"}; !slices.Equal(ids, want) {
		t.Errorf("installed %q, want %q", ids, want)
	}
	kept, err := s.RemoveMarketplace("team")
	if err != nil || len(kept) != 3 {
		t.Errorf("RemoveMarketplace: %q, %v", kept, err)
	}
	if mk, _ := s.Marketplaces(); len(mk) != 0 {
		t.Errorf("marketplaces after remove: %+v", mk)
	}
}

// A marketplace from a git URL is cloned into the store, and its
// plugins' relative sources are read from the clone.
func TestAddMarketplaceFromGit(t *testing.T) {
	repo := filepath.Join(t.TempDir(), "market")
	writeTree(t, filepath.Join(repo, "plugins", "greet"), greetFiles())
	writeTree(t, repo, map[string]string{".claude-plugin/marketplace.json": `{"name": "remote", "plugins": [{"name": "greet", "source": "./plugins/greet"}]}`})
	gitRepo(t, repo)
	s := NewStore(t.TempDir())
	rec, _, err := s.AddMarketplace(context.Background(), "file://"+repo, "/")
	if err != nil {
		t.Fatal(err)
	}
	clone := filepath.Join(s.Dir, "marketplaces", "remote")
	if !rec.Git || rec.Root != clone {
		t.Errorf("record %+v, want the clone %s", rec, clone)
	}
	if got := install(t, s, "greet@remote", "/"); got.Source != filepath.Join(clone, "plugins", "greet") {
		t.Errorf("greet's source %s", got.Source)
	}
	if _, err := s.RemoveMarketplace("remote"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(clone); err == nil {
		t.Error("the clone is left after remove")
	}
}

// What is not a plugin, or would reach outside one, is refused with a
// message that says why; nothing is left staged.
func TestStageRefusals(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"market/.claude-plugin/marketplace.json": `{"name": "m", "plugins": [{"name": "out", "source": "../outside"}]}`,
		"empty/README.md":                        "nothing here\n",
		"badname/.claude-plugin/plugin.json":     `{"name": "bad name"}`,
		"badjson/.claude-plugin/plugin.json":     `{"name": `,
	})
	s := NewStore(t.TempDir())
	for source, want := range map[string]string{
		"market":                                 "it is a marketplace",
		"empty":                                  "not a plugin",
		"badname":                                `name "bad name"`,
		"badjson":                                "plugin.json",
		"missing":                                "no such directory",
		"market/.claude-plugin/marketplace.json": "is a file",
	} {
		if _, err := s.Stage(context.Background(), source, root); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Stage(%s): %v, want an error saying %q", source, err, want)
		}
	}
	if _, _, err := s.AddMarketplace(context.Background(), filepath.Join(root, "market"), "/"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Stage(context.Background(), "out@m", "/"); err == nil || !strings.Contains(err.Error(), "must stay inside") {
		t.Errorf("a source outside the marketplace: %v", err)
	}
	if left, _ := os.ReadDir(filepath.Join(s.Dir, "staging")); len(left) != 0 {
		t.Errorf("the staging area keeps %d entries", len(left))
	}
	if recs, _ := s.Installed(); len(recs) != 0 {
		t.Errorf("installed %+v", recs)
	}
}

// A symlink inside a plugin is left out of its copy (followed, it could
// bring in any file) and said so; a source that is itself a symlink to
// the plugin's directory is copied.
func TestInstallLeavesSymlinksOut(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "greet")
	writeTree(t, src, greetFiles())
	secret := filepath.Join(dir, "secret.txt")
	writeTree(t, dir, map[string]string{"secret.txt": "SECRET\n"})
	if err := os.Symlink(secret, filepath.Join(src, "commands", "leak.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(src, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	s := NewStore(t.TempDir())
	st, err := s.Stage(context.Background(), filepath.Join(dir, "link"), "/")
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Notes) != 1 || !strings.Contains(st.Notes[0], "commands/leak.md: a symlink, left out") {
		t.Errorf("notes %q", st.Notes)
	}
	rec, err := st.Commit()
	if err != nil {
		t.Fatal(err)
	}
	cmds, _, _ := names(s.Load(rec))
	if !slices.Equal(cmds, []string{"greet:hello", "greet:shout"}) {
		t.Errorf("commands %q", cmds)
	}
}

// A marketplace's entry whose source is a symlink committed in the
// marketplace's repository (a path entry, a git-subdir's path) is refused:
// followed, it would copy any directory of the person's into the plugin
// (here one that looks like a plugin, beside a secret).
func TestMarketplaceSourceSymlinkStaysInside(t *testing.T) {
	tmp := t.TempDir()
	outside := filepath.Join(tmp, "home")
	writeTree(t, outside, greetFiles())
	writeTree(t, outside, map[string]string{"secret.txt": "SECRET\n"})
	repo := filepath.Join(tmp, "market")
	writeTree(t, repo, map[string]string{".claude-plugin/marketplace.json": `{"name": "remote", "plugins": [
		{"name": "byPath", "source": "./plugins/greet"},
		{"name": "bySubdir", "source": {"source": "git-subdir", "url": "file://` + filepath.ToSlash(repo) + `", "path": "plugins/greet"}}]}`})
	if err := os.MkdirAll(filepath.Join(repo, "plugins"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(repo, "plugins", "greet")); err != nil {
		t.Fatal(err)
	}
	gitRepo(t, repo)
	s := NewStore(t.TempDir())
	if _, _, err := s.AddMarketplace(context.Background(), "file://"+repo, "/"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"byPath@remote", "bySubdir@remote"} {
		st, err := s.Stage(context.Background(), name, "/")
		if err == nil {
			_, statErr := os.Stat(filepath.Join(st.dir, "secret.txt"))
			st.Discard()
			t.Errorf("Stage(%s) followed the symlink out of the marketplace (secret copied: %v)", name, statErr == nil)
			continue
		}
		if !strings.Contains(err.Error(), "must stay inside") {
			t.Errorf("Stage(%s): %v, want an error saying it must stay inside", name, err)
		}
	}
}
