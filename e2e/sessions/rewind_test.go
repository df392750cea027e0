package sessions

import (
	"encoding/json"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// gitRepo makes a git repository in a temporary directory with files
// committed, a stash, and an ignored file, and returns it.
func gitRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		e2e.WriteFile(t, dir, name, content)
	}
	e2e.WriteFile(t, dir, ".gitignore", "*.log\n")
	git(t, dir, "init", "-q", "-b", "main")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "start")
	e2e.WriteFile(t, dir, "a.txt", "stashed work\n")
	git(t, dir, "stash", "-q")
	git(t, dir, "config", "agent.test", "kept")
	e2e.WriteFile(t, dir, "build.log", "an ignored file\n")
	return dir
}

// git runs git in dir with the test's own identity and no user config.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=test", "-c", "user.email=test@example.com"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v: %s", args, err, out)
	}
	return string(out)
}

// files reads every file under dir (under .git only when dotGit, else
// everything but .git): slash path → content, mode and time.
func files(t *testing.T, dir string, dotGit bool) map[string]string {
	t.Helper()
	out := map[string]string{}
	root := dir
	if dotGit {
		root = filepath.Join(dir, ".git")
	}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !dotGit && d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		out[filepath.ToSlash(rel)] = info.Mode().String() + " " + info.ModTime().Format(time.RFC3339Nano) + "\n" + string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// contents is files without the times: what a rewind restores.
func contents(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for p, v := range files(t, dir, false) {
		mode, rest, _ := strings.Cut(v, " ")
		_, data, _ := strings.Cut(rest, "\n")
		out[p] = mode + "\n" + data
	}
	return out
}

// sameFiles fails the test when got and want differ, naming the paths.
func sameFiles(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	for _, p := range slices.Sorted(maps.Keys(want)) {
		if g, ok := got[p]; !ok {
			t.Errorf("%s: %s is missing", what, p)
		} else if g != want[p] {
			t.Errorf("%s: %s is %q, want %q", what, p, g, want[p])
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s: %s should not be there", what, p)
		}
	}
}

// rewindJSON is agent rewind --json's object.
type rewindJSON struct {
	Checkpoint struct {
		N  int    `json:"n"`
		ID string `json:"id"`
	} `json:"checkpoint"`
	Changes, Kept, Protected, Restored []struct {
		Path    string `json:"path"`
		Action  string `json:"action"`
		Added   int    `json:"added"`
		Removed int    `json:"removed"`
	}
	Session string `json:"session"`
	DryRun  bool   `json:"dry_run"`
}

func rewindOf(t *testing.T, res e2e.Result) rewindJSON {
	t.Helper()
	var r rewindJSON
	if res.Code != 0 || json.Unmarshal([]byte(res.Stdout), &r) != nil {
		t.Fatalf("agent rewind --json: exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
	}
	return r
}

// TestRewindCodeRestoresEveryChangeOfATurn: one turn edits a file with
// edit_file, another with sed through bash, a third through a formatter
// script, and creates a fourth; rewinding the code to its prompt puts all
// four back byte for byte (the fourth removed). A dry run changes
// nothing. The repository's .git (refs, index, stash, config) and an
// ignored file are the same before and after.
func TestRewindCodeRestoresEveryChangeOfATurn(t *testing.T) {
	t.Parallel()
	dir := gitRepo(t, map[string]string{
		"a.txt":  "alpha\n",
		"b.txt":  "bravo\nbravo again\n",
		"c.txt":  "charlie\n",
		"fmt.sh": "tr a-z A-Z < c.txt > c.tmp && mv c.tmp c.txt\n",
	})
	db := filepath.Join(t.TempDir(), "a.db")
	before, gitBefore, ignored := contents(t, dir), files(t, dir, true), files(t, dir, false)["build.log"]
	srv := scripted.New(t,
		scripted.ToolCalls(
			scripted.Call{ID: "e1", Name: "edit_file", Arguments: `{"path":"a.txt","old_string":"alpha","new_string":"ALPHA"}`},
			scripted.Call{ID: "b1", Name: "bash", Arguments: `{"command":"sed -i 's/bravo/BRAVO/' b.txt"}`},
			scripted.Call{ID: "b2", Name: "bash", Arguments: `{"command":"sh fmt.sh"}`},
			scripted.Call{ID: "w1", Name: "write_file", Arguments: `{"path":"d.txt","content":"delta\n"}`},
		),
		scripted.Text("Four files changed."),
	)
	run := e2e.RunOK(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "--db", db, "--allow-bash", "-p", "--output-format", "json", "change them")})
	id := e2e.SessionIDOf(t, run.Stdout)
	after := contents(t, dir)
	for p, want := range map[string]string{"a.txt": "ALPHA\n", "b.txt": "BRAVO\nBRAVO again\n", "c.txt": "CHARLIE\n", "d.txt": "delta\n"} {
		if !strings.HasSuffix(after[p], "\n"+want) {
			t.Fatalf("after the turn %s = %q, want %q; stderr:\n%s", p, after[p], want, run.Stderr)
		}
	}

	dry := rewindOf(t, e2e.Run(t, e2e.Invocation{Dir: dir, Args: []string{"--db", db, "rewind", "--to", "1", "--dry-run", "--json"}}))
	var planned []string
	for _, c := range dry.Changes {
		planned = append(planned, c.Path+" "+c.Action)
	}
	if !dry.DryRun || dry.Checkpoint.N != 1 || dry.Session != id || len(dry.Restored) != 0 || len(dry.Kept) != 0 ||
		strings.Join(planned, ", ") != "a.txt modify, b.txt modify, c.txt modify, d.txt delete" {
		t.Errorf("dry run: %+v", dry)
	}
	if dry.Changes[1].Added != 2 || dry.Changes[1].Removed != 2 {
		t.Errorf("b.txt's lines: +%d −%d, want +2 −2", dry.Changes[1].Added, dry.Changes[1].Removed)
	}
	sameFiles(t, "after the dry run", contents(t, dir), after)

	res := e2e.RunOK(t, e2e.Invocation{Dir: dir, Args: []string{"--db", db, "rewind", "--to", "1", "--scope", "code"}})
	for _, want := range []string{"restored a.txt  +1 −1", "restored b.txt  +2 −2", "restored c.txt", "removed d.txt  +0 −1"} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("rewind's output lacks %q:\n%s", want, res.Stdout)
		}
	}
	if strings.Contains(res.Stdout, "Kept") || strings.Contains(res.Stdout, "goes on in session") {
		t.Errorf("a code rewind with nothing changed outside:\n%s", res.Stdout)
	}
	sameFiles(t, "after the rewind", contents(t, dir), before)
	sameFiles(t, "the repository's .git", files(t, dir, true), gitBefore)
	if got := files(t, dir, false)["build.log"]; got != ignored {
		t.Errorf("the ignored file changed: %q, was %q", got, ignored)
	}
	if stash := git(t, dir, "stash", "list"); !strings.Contains(stash, "stash@{0}") {
		t.Errorf("the stash is gone: %q", stash)
	}
}

// TestRewindBackForwardAndTheConversation: three prompts; the code goes
// back to the first and then forward to the third's checkpoint; a
// conversation rewind leaves the files and forks the session (the old
// branch listed by sessions show, the fork continued with -r without the
// prompts after it); both does both.
func TestRewindBackForwardAndTheConversation(t *testing.T) {
	t.Parallel()
	dir := gitRepo(t, map[string]string{"a.txt": "one\n"})
	db := filepath.Join(t.TempDir(), "a.db")
	gitBefore := files(t, dir, true)
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "e1", Name: "edit_file", Arguments: `{"path":"a.txt","old_string":"one","new_string":"two"}`}),
		scripted.Text("Edited."),
		scripted.ToolCalls(scripted.Call{ID: "b1", Name: "bash", Arguments: `{"command":"echo made > b.txt"}`}),
		scripted.Text("Made."),
		scripted.ToolCalls(scripted.Call{ID: "e2", Name: "edit_file", Arguments: `{"path":"a.txt","old_string":"two","new_string":"three"}`}),
		scripted.Text("Edited again."),
		scripted.Text("Went on in the fork."),
	)
	states := []map[string]string{contents(t, dir)}
	var id string
	for i, prompt := range []string{"first prompt", "second prompt", "third prompt"} {
		args := e2e.AgentArgs(srv, "--db", db, "--allow-bash", "-p", "--output-format", "json", prompt)
		if i > 0 {
			args = append([]string{"-r", id}, args...)
		}
		id = e2e.SessionIDOf(t, e2e.RunOK(t, e2e.Invocation{Dir: dir, Args: args}).Stdout)
		states = append(states, contents(t, dir))
	}
	rewind := func(args ...string) e2e.Result {
		t.Helper()
		return e2e.RunOK(t, e2e.Invocation{Dir: dir, Args: append([]string{"--db", db, "rewind", "--session", id}, args...)})
	}

	rewind("--to", "1")
	sameFiles(t, "back to prompt 1", contents(t, dir), states[0])
	fwd := rewind("--to", "3")
	sameFiles(t, "forward to prompt 3", contents(t, dir), states[2])
	if strings.Contains(fwd.Stdout, "Kept") {
		t.Errorf("rewinding forward took the first rewind's writes for changes made outside the agent:\n%s", fwd.Stdout)
	}

	conv := rewindOf(t, rewind("--to", "2", "--scope", "conversation", "--json"))
	fork := conv.Session
	if fork == "" || fork == id || len(conv.Changes) != 0 || len(conv.Restored) != 0 {
		t.Fatalf("conversation rewind: %+v", conv)
	}
	sameFiles(t, "after the conversation rewind", contents(t, dir), states[2])
	show := e2e.RunOK(t, e2e.Invocation{Dir: dir, Args: []string{"--db", db, "sessions", "show", id}})
	for _, want := range []string{"branches (sessions forked from this one):\n  " + fork + "  before prompt 2", `"third prompt"  files changed: a.txt`} {
		if !strings.Contains(show.Stdout, want) {
			t.Errorf("sessions show of the original lacks %q:\n%s", want, show.Stdout)
		}
	}
	forkShow := e2e.RunOK(t, e2e.Invocation{Dir: dir, Args: []string{"--db", db, "sessions", "show", fork}})
	if !strings.Contains(forkShow.Stdout, "forked from session "+id+" before its prompt 2") || strings.Contains(forkShow.Stdout, "second prompt") {
		t.Errorf("sessions show of the fork:\n%s", forkShow.Stdout)
	}
	e2e.RunOK(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "--db", db, "-r", fork, "-p", "go on")})
	reqs := srv.Requests()
	sent, _ := json.Marshal(reqs[len(reqs)-1])
	if !strings.Contains(string(sent), "first prompt") || strings.Contains(string(sent), "second prompt") || strings.Contains(string(sent), "third prompt") {
		t.Errorf("the fork's request should hold the first prompt only: %s", sent)
	}

	both := rewindOf(t, rewind("--to", "1", "--scope", "both", "--json"))
	if both.Session == id || both.Session == fork || len(both.Restored) != 2 {
		t.Errorf("both: %+v", both)
	}
	sameFiles(t, "after rewinding both", contents(t, dir), states[0])
	sameFiles(t, "the repository's .git", files(t, dir, true), gitBefore)
}

// TestRewindKeepsWhatThePersonChanged: a file the person changed after
// the turn is reported and kept; --force restores it.
func TestRewindKeepsWhatThePersonChanged(t *testing.T) {
	t.Parallel()
	dir := gitRepo(t, map[string]string{"a.txt": "alpha\n", "b.txt": "bravo\n"})
	db := filepath.Join(t.TempDir(), "a.db")
	before := contents(t, dir)
	srv := scripted.New(t,
		scripted.ToolCalls(
			scripted.Call{ID: "e1", Name: "edit_file", Arguments: `{"path":"a.txt","old_string":"alpha","new_string":"ALPHA"}`},
			scripted.Call{ID: "e2", Name: "edit_file", Arguments: `{"path":"b.txt","old_string":"bravo","new_string":"BRAVO"}`},
		),
		scripted.Text("Changed."),
	)
	e2e.RunOK(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "--db", db, "-p", "change them")})
	e2e.WriteFile(t, dir, "b.txt", "the person's own edit\n")

	dry := rewindOf(t, e2e.Run(t, e2e.Invocation{Dir: dir, Args: []string{"--db", db, "rewind", "--to", "1", "--dry-run", "--json"}}))
	if len(dry.Changes) != 1 || dry.Changes[0].Path != "a.txt" || len(dry.Kept) != 1 || dry.Kept[0].Path != "b.txt" {
		t.Errorf("dry run: %+v", dry)
	}
	res := e2e.RunOK(t, e2e.Invocation{Dir: dir, Args: []string{"--db", db, "rewind", "--to", "1"}})
	if !strings.Contains(res.Stdout, "restored a.txt") ||
		!strings.Contains(res.Stdout, "Kept, changed outside the agent since the checkpoint; --force restores them:\n  modify b.txt") {
		t.Errorf("rewind's output:\n%s", res.Stdout)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "b.txt")); string(got) != "the person's own edit\n" {
		t.Errorf("b.txt = %q: the person's change was not kept", got)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(got) != "alpha\n" {
		t.Errorf("a.txt = %q, want it restored", got)
	}
	again := e2e.RunOK(t, e2e.Invocation{Dir: dir, Args: []string{"--db", db, "rewind", "--to", "1"}})
	if !strings.Contains(again.Stdout, "modify b.txt") {
		t.Errorf("a second rewind should keep b.txt again:\n%s", again.Stdout)
	}
	for _, bad := range [][]string{{"--to", "9"}, {"--to", "1", "--session", "ffff0000ffff"}, {"--to", "1", "--scope", "files"}} {
		if r := e2e.Run(t, e2e.Invocation{Dir: dir, Args: append([]string{"--db", db, "rewind"}, bad...)}); r.Code != 2 || r.Stderr == "" {
			t.Errorf("rewind %v: exit %d, stderr %q; want a usage error (2)", bad, r.Code, r.Stderr)
		}
	}
	forced := e2e.RunOK(t, e2e.Invocation{Dir: dir, Args: []string{"--db", db, "rewind", "--to", "1", "--force"}})
	if !strings.Contains(forced.Stdout, "restored b.txt") {
		t.Errorf("rewind --force:\n%s", forced.Stdout)
	}
	sameFiles(t, "after rewind --force", contents(t, dir), before)
}
