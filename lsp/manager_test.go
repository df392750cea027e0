package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/internal/scriptedlsp"
	"github.com/agent-dev/agent/tools"
)

func TestMain(m *testing.M) {
	scriptedlsp.Main() // the test binary is the scripted server when asked
	os.Exit(m.Run())
}

// scripted is the scripted language server in mode, serving .txt files.
func scripted(mode string, opts ...scriptedlsp.Option) Server {
	argv, env := scriptedlsp.Command(mode, opts...)
	return Server{Name: "scripted", Command: argv[0], Args: argv[1:], Extensions: []string{".txt"}, Env: env}
}

// scriptedManager is a Manager of a new directory holding files, with the
// scripted server in mode; restarts are immediate.
func scriptedManager(t *testing.T, files map[string]string, wait time.Duration, srv Server) (*Manager, string) {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, files)
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := New(Options{Dir: dir, Root: root, Servers: []Server{srv}, Wait: wait, Env: os.Environ(), Backoff: time.Nanosecond})
	t.Cleanup(func() { m.Close(); root.Close() })
	return m, dir
}

// generous is a wait no healthy server needs, for the tests where the
// server answers: they end at its answer.
const generous = 30 * time.Second

func TestAnEditReportsTheErrorItIntroducedInAnotherFile(t *testing.T) {
	m, dir := scriptedManager(t, map[string]string{"a.txt": "def Add\n", "other.txt": "calls Add\n"}, generous, scripted(scriptedlsp.ModeNormal))
	m.Open("a.txt")
	m.Open("other.txt")
	writeFiles(t, dir, map[string]string{"a.txt": "def Add\nBREAKS other.txt: not enough arguments in call to Add\n"})
	rep := m.Change(context.Background(), []string{"a.txt"})
	if len(rep.New) != 1 || rep.New[0].String() != "other.txt:1:1: error: not enough arguments in call to Add (scriptedlsp)" {
		t.Fatalf("want the new error in other.txt, got %+v", rep)
	}
	if !strings.Contains(rep.Text(), "<diagnostics>\nThis change introduced 1 error (scripted):\nother.txt:1:1: error:") {
		t.Errorf("the model reads:\n%s", rep.Text())
	}
	writeFiles(t, dir, map[string]string{"a.txt": "def Add\n"})
	if rep := m.Change(context.Background(), []string{"a.txt"}); !rep.Empty() {
		t.Errorf("the fix reports %+v", rep)
	}
}

func TestAnEditReportsOnlyTheNewErrorAmongOldWarnings(t *testing.T) {
	var old strings.Builder
	for i := range 50 {
		fmt.Fprintf(&old, "x := %d // WARN: unused variable x%d\n", i, i)
	}
	m, dir := scriptedManager(t, map[string]string{"a.txt": old.String()}, generous, scripted(scriptedlsp.ModeNormal))
	m.Open("a.txt")
	// The new line above them moves all fifty down by one.
	writeFiles(t, dir, map[string]string{"a.txt": "y := f() // ERROR: undefined: f\n" + old.String()})
	rep := m.Change(context.Background(), []string{"a.txt"})
	if len(rep.New) != 1 || rep.New[0].Severity != "error" || rep.New[0].Message != "undefined: f" || rep.New[0].Line != 1 {
		t.Fatalf("want only the new error, got %+v", rep)
	}
}

func TestAnEditOfAFileNeverReadReportsItsErrors(t *testing.T) {
	m, dir := scriptedManager(t, map[string]string{}, generous, scripted(scriptedlsp.ModeNormal))
	writeFiles(t, dir, map[string]string{"new.txt": "ok\nERROR: syntax error\n"})
	rep := m.Change(context.Background(), []string{"new.txt"})
	if len(rep.New) != 1 || rep.New[0].String() != "new.txt:2:1: error: syntax error (scriptedlsp)" {
		t.Fatalf("got %+v", rep)
	}
}

func TestAFileNoServerServesCostsNothing(t *testing.T) {
	m, dir := scriptedManager(t, map[string]string{"a.md": "# hi\n"}, generous, scripted(scriptedlsp.ModeHang))
	writeFiles(t, dir, map[string]string{"a.md": "# hello\n"})
	if rep := m.Change(context.Background(), []string{"a.md"}); !rep.Empty() {
		t.Fatalf("got %+v", rep)
	}
	if st := m.States(); len(st) != 1 || st[0].State != "not started" {
		t.Errorf("a markdown edit started the server: %+v", st)
	}
}

// budgetSlack is what a test allows past the wait for the machine's
// scheduling; the product's own overhead (BENCHMARKS.md) is milliseconds.
const budgetSlack = 2 * time.Second

func TestAServerThatNeverAnswersDoesNotHoldAnEdit(t *testing.T) {
	for _, mode := range []string{scriptedlsp.ModeHang, scriptedlsp.ModeHangAfterInit} {
		t.Run(mode, func(t *testing.T) {
			const wait = 300 * time.Millisecond
			m, dir := scriptedManager(t, map[string]string{"a.txt": "ok\n"}, wait, scripted(mode))
			writeFiles(t, dir, map[string]string{"a.txt": "ERROR: broken\n"})
			start := time.Now()
			rep := m.Change(context.Background(), []string{"a.txt"})
			if took := time.Since(start); took > wait+budgetSlack {
				t.Errorf("the edit waited %s with a wait of %s", took, wait)
			}
			want := map[string]string{scriptedlsp.ModeHang: "scripted is still starting", scriptedlsp.ModeHangAfterInit: "scripted had not finished checking after"}[mode]
			if len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], want) || !strings.Contains(rep.Text(), want) {
				t.Errorf("notes %q, want %q", rep.Notes, want)
			}
		})
	}
}

func TestAServerThatExitsAtStartIsGivenUp(t *testing.T) {
	m, dir := scriptedManager(t, map[string]string{"a.txt": "ok\n"}, generous, scripted(scriptedlsp.ModeExitAtStart))
	writeFiles(t, dir, map[string]string{"a.txt": "changed\n"})
	// Restarts are immediate here: the edit sees all of them.
	rep := m.Change(context.Background(), []string{"a.txt"})
	if len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "scripted gave up after 4 failed starts or crashes") ||
		!strings.Contains(rep.Notes[0], scriptedlsp.ExitAtStartMessage) {
		t.Errorf("notes %q", rep.Notes)
	}
	writeFiles(t, dir, map[string]string{"a.txt": "changed again\n"})
	if rep := m.Change(context.Background(), []string{"a.txt"}); len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "gave up") {
		t.Errorf("a server given up started again: %+v", rep)
	}
	st := m.States()
	if len(st) != 1 || st[0].State != "gave up" || st[0].Restarts != maxRestarts+1 || !strings.Contains(st[0].Detail, "exit status 3") {
		t.Errorf("states %+v", st)
	}
}

func TestAServerThatCrashesMidSessionIsRestarted(t *testing.T) {
	m, dir := scriptedManager(t, map[string]string{"a.txt": "ok\n"}, generous, scripted(scriptedlsp.ModeCrash, scriptedlsp.CrashAfter(2)))
	m.Open("a.txt")
	change := func(text string) Report {
		writeFiles(t, dir, map[string]string{"a.txt": text})
		return m.Change(context.Background(), []string{"a.txt"})
	}
	if rep := change("WARN: first\n"); len(rep.New) != 1 {
		t.Fatalf("first change: %+v", rep)
	}
	rep := change("ERROR: second\n") // the server exits at this one
	if len(rep.New) != 0 || len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "scripted exit status 2") || !strings.Contains(rep.Notes[0], "restarts at the next file") {
		t.Fatalf("the crash reads %+v", rep)
	}
	rep = change("ERROR: third\n")
	if len(rep.New) != 1 || rep.New[0].Message != "third" {
		t.Fatalf("after the restart: %+v", rep)
	}
	if st := m.States(); st[0].State != "running" || st[0].Restarts != 1 {
		t.Errorf("states %+v", st)
	}
}

func TestACommandsChangeToAFileTheServerHasIsReported(t *testing.T) {
	m, dir := scriptedManager(t, map[string]string{"a.txt": "ok\n", "b.txt": "ok\n"}, generous, scripted(scriptedlsp.ModeNormal))
	m.Open("a.txt")
	if rep := m.Sync(context.Background()); !rep.Empty() {
		t.Fatalf("nothing changed, got %+v", rep)
	}
	writeFiles(t, dir, map[string]string{"a.txt": "ERROR: sed broke it\n", "b.txt": "ERROR: never read\n"})
	rep := m.Sync(context.Background())
	if len(rep.New) != 1 || rep.New[0].Path != "a.txt" {
		t.Fatalf("got %+v", rep)
	}
}

func TestClosingShutsTheServersDown(t *testing.T) {
	log := filepath.Join(t.TempDir(), "log")
	m, _ := scriptedManager(t, map[string]string{"a.txt": "ok\n"}, generous, scripted(scriptedlsp.ModeNormal, scriptedlsp.Log(log)))
	m.Open("a.txt")
	if rep := m.Change(context.Background(), []string{"a.txt"}); !rep.Empty() {
		t.Fatal(rep)
	}
	m.Close()
	data, _ := os.ReadFile(log)
	if !strings.HasSuffix(string(data), "shutdown\nexit\n") || !strings.Contains(string(data), "textDocument/didOpen 1\n") {
		t.Errorf("the server heard:\n%s", data)
	}
}

func TestTheToolFindsADefinitionAndItsReferences(t *testing.T) {
	m, _ := scriptedManager(t, map[string]string{"a.txt": "def Add\n", "b.txt": "x = Add 1 2\ny = Add 3 4\n"}, generous, scripted(scriptedlsp.ModeNormal))
	tool := Tool(m)
	run := func(args map[string]any) tools.Result {
		t.Helper()
		raw, _ := json.Marshal(args)
		res, err := tool.Run(context.Background(), tools.Call{Args: raw})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := run(map[string]any{"operation": "definition", "path": "b.txt", "line": 2, "symbol": "Add"})
	if res.IsError || res.Content != "a.txt:1:5: def Add\n" {
		t.Errorf("definition: %+v", res)
	}
	res = run(map[string]any{"operation": "references", "path": "a.txt", "line": 1, "symbol": "Add"})
	for _, want := range []string{"a.txt:1:5: def Add", "b.txt:1:5: x = Add 1 2", "b.txt:2:5: y = Add 3 4"} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("references lack %q:\n%s", want, res.Content)
		}
	}
	if res := run(map[string]any{"operation": "hover", "path": "b.txt", "line": 1, "symbol": "Nope"}); !res.IsError || !strings.Contains(res.Content, `"Nope" is not on line 1`) {
		t.Errorf("a symbol not on the line: %+v", res)
	}
	if res := run(map[string]any{"operation": "definition", "path": "../x.txt", "line": 1, "symbol": "x"}); !res.IsError || !strings.Contains(res.Content, "outside the working directory") {
		t.Errorf("a path outside: %+v", res)
	}
}

func TestAFileThePersonsRulesDenyIsNeverGivenToAServerNorShown(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.txt": "ok\n", "secret.txt": "def Key\n"})
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(t.TempDir(), "log")
	m := New(Options{Dir: dir, Root: root, Servers: []Server{scripted(scriptedlsp.ModeNormal, scriptedlsp.Log(log))}, Wait: generous, Env: os.Environ(),
		Denied: func(rel string) bool { return rel == "secret.txt" }})
	defer root.Close()
	m.Open("secret.txt")
	m.Open("a.txt")
	writeFiles(t, dir, map[string]string{"a.txt": "ok\nBREAKS secret.txt: leaked\n", "secret.txt": "def Key\nERROR: token=abc\n"})
	rep := m.Change(context.Background(), []string{"a.txt", "secret.txt"})
	if strings.Contains(rep.Text(), "secret") {
		t.Errorf("the report shows the denied file:\n%s", rep.Text())
	}
	res, _ := Tool(m).Run(context.Background(), tools.Call{Args: json.RawMessage(`{"operation":"symbols","path":"secret.txt"}`)})
	if !res.IsError {
		t.Errorf("the tool read the denied file: %+v", res)
	}
	m.Close()
	data, _ := os.ReadFile(log)
	if strings.Contains(string(data), "didOpen 1\ntextDocument/didOpen") || strings.Count(string(data), "didOpen") != 1 {
		t.Errorf("the server was given more than a.txt:\n%s", data)
	}
}

func TestADeniedFileIsNotGivenToAServerThroughASymlink(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.txt": "ok\n", "secret.txt": "def Key\nERROR: token=abc\n"})
	if err := os.Symlink("secret.txt", filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	log := filepath.Join(t.TempDir(), "log")
	m := New(Options{Dir: dir, Root: root, Servers: []Server{scripted(scriptedlsp.ModeNormal, scriptedlsp.Log(log))}, Wait: generous, Env: os.Environ(),
		Denied: func(rel string) bool { return rel == "secret.txt" }})
	m.Open("a.txt")
	m.Open("link.txt")
	rep := m.Change(context.Background(), []string{"link.txt", "a.txt"})
	if strings.Contains(rep.Text(), "token") {
		t.Errorf("the report shows the denied file's content:\n%s", rep.Text())
	}
	res, _ := Tool(m).Run(context.Background(), tools.Call{Args: json.RawMessage(`{"operation":"symbols","path":"link.txt"}`)})
	if !res.IsError || strings.Contains(res.Content, "Key") {
		t.Errorf("the tool read the denied file through the link: %+v", res)
	}
	if cur := m.current(""); strings.Contains(cur, "token") {
		t.Errorf("the diagnostics operation shows the denied file: %s", cur)
	}
	m.Close()
	data, _ := os.ReadFile(log)
	if n := strings.Count(string(data), "didOpen"); n != 1 {
		t.Errorf("the server was given more than a.txt:\n%s", data)
	}
}

func TestACommandThatDeletesAFileReportsWhatItBrokeAndForgetsItsDiagnostics(t *testing.T) {
	m, dir := scriptedManager(t, map[string]string{"a.txt": "def Add\nWARN: unused Sub\n", "b.txt": "NEEDS a.txt\n"}, generous, scripted(scriptedlsp.ModeNormal))
	m.Open("a.txt")
	m.Open("b.txt")
	if rep := m.Sync(context.Background()); !rep.Empty() {
		t.Fatalf("nothing changed yet: %+v", rep)
	}
	if err := os.Remove(filepath.Join(dir, "a.txt")); err != nil { // bash: rm a.txt
		t.Fatal(err)
	}
	rep := m.Sync(context.Background())
	if len(rep.New) != 1 || rep.New[0].String() != "b.txt:1:1: error: a.txt: no such file (scriptedlsp)" {
		t.Errorf("want the error the removal caused in b.txt, got %+v", rep)
	}
	if e, w := m.Counts(); e != 1 || w != 0 {
		t.Errorf("the status line counts %d errors and %d warnings, want b.txt's error only (a.txt is gone)", e, w)
	}
	if cur := m.current(""); strings.Contains(cur, "unused Sub") {
		t.Errorf("the diagnostics operation lists the removed file:\n%s", cur)
	}
}

// Servers differ in how they say which version they checked: not at all,
// "version": null, or an older one after a newer.
func TestAnEditSeesTheNewVersionsDiagnosticsWhateverTheServerSaysOfVersions(t *testing.T) {
	for _, how := range []string{scriptedlsp.VersionsNone, scriptedlsp.VersionsNull, scriptedlsp.VersionsStale} {
		t.Run(how, func(t *testing.T) {
			const wait = 3 * time.Second
			m, dir := scriptedManager(t, map[string]string{"a.txt": "ok\n"}, wait, scripted(scriptedlsp.ModeNormal, scriptedlsp.Versions(how)))
			m.Open("a.txt")
			for i, step := range []struct{ text, want string }{
				{"ok\nERROR: first\n", "a.txt:2:1: error: first (scriptedlsp)"},
				{"ok\nERROR: first\nERROR: second\n", "a.txt:3:1: error: second (scriptedlsp)"},
				{"fixed\n", ""},
			} {
				writeFiles(t, dir, map[string]string{"a.txt": step.text})
				start := time.Now()
				rep := m.Change(context.Background(), []string{"a.txt"})
				got := ""
				for _, d := range rep.New {
					got += d.String()
				}
				if got != step.want || len(rep.Notes) > 0 {
					t.Errorf("edit %d: want %q, got %+v", i+1, step.want, rep)
				}
				if took := time.Since(start); took > wait/2 {
					t.Errorf("edit %d waited %s for a server that had answered", i+1, took)
				}
			}
			if e, _ := m.Counts(); e != 0 {
				t.Errorf("the status line counts %d errors once fixed", e)
			}
		})
	}
}

func TestAnEditThatIntroducesManyErrorsCountsThemAsErrors(t *testing.T) {
	m, dir := scriptedManager(t, map[string]string{"a.txt": "ok\n"}, generous, scripted(scriptedlsp.ModeNormal))
	m.Open("a.txt")
	writeFiles(t, dir, map[string]string{"a.txt": strings.Repeat("ERROR: undefined: x\n", 100) + strings.Repeat("WARN: unused y\n", 3)})
	rep := m.Change(context.Background(), []string{"a.txt"})
	if len(rep.New)+rep.More != 103 || len(rep.New) > maxReported {
		t.Fatalf("want 103 new, at most %d listed, got %d listed and %d more", maxReported, len(rep.New), rep.More)
	}
	if !strings.Contains(rep.Text(), "This change introduced 100 errors and 3 warnings") {
		t.Errorf("the model reads:\n%s", rep.Text())
	}
}

// A repository can point its server at files outside the working
// directory (tsconfig.json's include, go.work's use); the person's
// credentials there are kept from the model as inside it.
func TestADeniedFileOutsideTheDirectoryIsNotShown(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "repo")
	writeFiles(t, base, map[string]string{"repo/a.txt": "ok\n", "home/.aws/credentials": "aws_secret_access_key = AKIA\n"})
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	creds := filepath.Join(base, "home", ".aws", "credentials")
	m := New(Options{Dir: dir, Root: root, Servers: []Server{scripted(scriptedlsp.ModeNormal)}, Wait: generous, Env: os.Environ(),
		Denied: func(rel string) bool { return filepath.Join(dir, rel) == creds }})
	defer m.Close()
	m.Open("a.txt")
	writeFiles(t, dir, map[string]string{"a.txt": "ok\nBREAKS ../home/.aws/credentials: cannot find name 'AKIA'\nERROR: own\n"})
	rep := m.Change(context.Background(), []string{"a.txt"})
	if len(rep.New) != 1 || strings.Contains(rep.Text(), "AKIA") || strings.Contains(rep.Text(), "credentials") {
		t.Errorf("want a.txt's own error only, got:\n%s", rep.Text())
	}
	if cur := m.current(""); strings.Contains(cur, "AKIA") {
		t.Errorf("the diagnostics operation shows the credentials file:\n%s", cur)
	}
}

func TestAServerThatNeverGoesQuietHoldsAnEditOnlyForTheWaitAndSaysSo(t *testing.T) {
	// Long enough for the client to read the flood's first publishes of
	// the edit on a loaded machine (the race detector's, with a whole
	// suite beside it, missed them in 500 ms); the edit waits all of it.
	const wait = 1500 * time.Millisecond
	m, dir := scriptedManager(t, map[string]string{"a.txt": "ok\n"}, wait, scripted(scriptedlsp.ModeFlood))
	m.Open("a.txt")
	writeFiles(t, dir, map[string]string{"a.txt": "ok\nERROR: broken\n"})
	start := time.Now()
	rep := m.Change(context.Background(), []string{"a.txt"})
	if took := time.Since(start); took > wait+budgetSlack {
		t.Errorf("the edit waited %s with a wait of %s", took, wait)
	}
	if len(rep.New) != 1 || rep.New[0].Message != "broken" {
		t.Errorf("want the new error only (not the thousands of hints), got %d: %+v", len(rep.New), rep.New[:min(3, len(rep.New))])
	}
	// The note that it was still publishing; on a machine starved enough
	// that even the flood paused for the quiet window, the note that the
	// file's diagnostics may be older is as true (both say the list may
	// be incomplete), but some note there must be.
	if len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "had not finished checking") && !strings.Contains(rep.Notes[0], "had not checked a.txt before this change") {
		t.Errorf("want a note that the server was still publishing, got %q", rep.Notes)
	}
}

func TestCommandsThatChangeNothingSayNothingOfAServerThatGaveUp(t *testing.T) {
	m, dir := scriptedManager(t, map[string]string{"a.txt": "ok\n"}, generous, scripted(scriptedlsp.ModeExitAtStart))
	m.Open("a.txt") // read_file
	writeFiles(t, dir, map[string]string{"a.txt": "changed\n"})
	if rep := m.Sync(context.Background()); len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "gave up") {
		t.Fatalf("the command that changed a.txt: %+v", rep)
	}
	for i := range 2 { // go build, ls: nothing changed since
		if rep := m.Sync(context.Background()); !rep.Empty() {
			t.Errorf("command %d changed nothing and reads %q", i+1, rep.Text())
		}
	}
}

func TestAnEditOfACRLFFileWithNonASCIITextReportsCharacterColumns(t *testing.T) {
	m, dir := scriptedManager(t, map[string]string{"a.txt": "héllo\r\n😀 WARN: old\r\n"}, generous, scripted(scriptedlsp.ModeNormal))
	m.Open("a.txt")
	writeFiles(t, dir, map[string]string{"a.txt": "héllo\r\nñ 😀 x ERROR: new\r\n😀 WARN: old\r\n"})
	rep := m.Change(context.Background(), []string{"a.txt"})
	if len(rep.New) != 1 || rep.New[0].String() != "a.txt:2:7: error: new (scriptedlsp)" {
		t.Errorf("want the new error at its character column, the moved old warning left out; got %+v", rep)
	}
}

func TestAServerThatWritesSomethingElseThanLSPIsGivenUpWithTheReason(t *testing.T) {
	const wait = 10 * time.Second
	m, dir := scriptedManager(t, map[string]string{"a.txt": "ok\n"}, wait, scripted(scriptedlsp.ModeBanner))
	writeFiles(t, dir, map[string]string{"a.txt": "ERROR: x\n"})
	start := time.Now()
	rep := m.Change(context.Background(), []string{"a.txt"})
	if took := time.Since(start); took > wait/2 {
		t.Errorf("the edit waited %s for a server that cannot be understood", took)
	}
	if len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "gave up") || !strings.Contains(rep.Notes[0], "what is not LSP on its standard output") {
		t.Errorf("notes %q", rep.Notes)
	}
}

func TestAServerThatWritesSomethingElseThanLSPAndStaysIsKilled(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	const wait = 10 * time.Second
	// A wrapper that prints a banner, then runs what ignores its input
	// and answers in a framing of its own.
	srv := Server{Name: "wrapper", Command: "sh", Args: []string{"-c", `printf 'Starting...\r\n\r\n'; exec sleep 60`}, Extensions: []string{".txt"}}
	m, dir := scriptedManager(t, map[string]string{"a.txt": "ok\n"}, wait, srv)
	writeFiles(t, dir, map[string]string{"a.txt": "ERROR: x\n"})
	start := time.Now()
	rep := m.Change(context.Background(), []string{"a.txt"})
	if took := time.Since(start); took > wait/2 {
		t.Errorf("the edit waited %s for a server that cannot be understood", took)
	}
	if len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "what is not LSP on its standard output") {
		t.Errorf("notes %q", rep.Notes)
	}
}

// A server may spell a document's URI otherwise than agent did (vscode-
// uri's %40 for @): it is the same document.
func TestAServerSpellingURIsItsOwnWayIsUnderstood(t *testing.T) {
	const wait = 5 * time.Second
	dir := filepath.Join(t.TempDir(), "proj@2+x")
	writeFiles(t, dir, map[string]string{"a.txt": "ok\n", "b.txt": "WARN: old\n"})
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	m := New(Options{Dir: dir, Root: root, Servers: []Server{scripted(scriptedlsp.ModeNormal, scriptedlsp.EncodeURIs())}, Wait: wait, Env: os.Environ()})
	defer m.Close()
	m.Open("a.txt")
	m.Open("b.txt")
	m.Change(context.Background(), []string{"a.txt", "b.txt"}) // unchanged: waits for their first diagnostics
	writeFiles(t, dir, map[string]string{"a.txt": "ERROR: new\n"})
	start := time.Now()
	rep := m.Change(context.Background(), []string{"a.txt"})
	if took := time.Since(start); took > wait/2 || len(rep.Notes) > 0 || len(rep.New) != 1 || rep.New[0].Path != "a.txt" {
		t.Errorf("after %s: %+v", took, rep)
	}
	if e, w := m.Counts(); e != 1 || w != 1 {
		t.Errorf("counts %d errors and %d warnings, want 1 and 1", e, w)
	}
}

func TestEscDuringAnEditsWaitReturnsAtOnce(t *testing.T) {
	for _, mode := range []string{scriptedlsp.ModeHang, scriptedlsp.ModeHangAfterInit, scriptedlsp.ModeSlow} {
		t.Run(mode, func(t *testing.T) {
			m, dir := scriptedManager(t, map[string]string{"a.txt": "ok\n"}, generous, scripted(mode))
			m.Open("a.txt")
			writeFiles(t, dir, map[string]string{"a.txt": "ERROR: x\n"})
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond) // the person's Esc
			defer cancel()
			start := time.Now()
			m.Change(ctx, []string{"a.txt"})
			if took := time.Since(start); took > 300*time.Millisecond+budgetSlack {
				t.Errorf("the edit returned %s after a wait of %s was cancelled at 300ms", took, generous)
			}
			res, _ := Tool(m).Run(ctx, tools.Call{Args: json.RawMessage(`{"operation":"hover","path":"a.txt","line":1,"symbol":"x"}`)})
			if took := time.Since(start); took > 300*time.Millisecond+budgetSlack || !res.IsError {
				t.Errorf("the tool returned %+v after %s", res, took)
			}
		})
	}
}

func TestAMonorepoOfManyPackagesStartsABoundedNumberOfServers(t *testing.T) {
	files := map[string]string{}
	for i := range 8 {
		files[fmt.Sprintf("packages/p%d/package.json", i)] = "{}\n"
		files[fmt.Sprintf("packages/p%d/a.txt", i)] = "ok\n"
	}
	srv := scripted(scriptedlsp.ModeNormal)
	srv.RootMarkers = []string{"package.json"}
	m, _ := scriptedManager(t, files, generous, srv)
	for i := range 8 {
		m.Open(fmt.Sprintf("packages/p%d/a.txt", i)) // the model reads a file of each package
	}
	st := m.States()
	if len(st) != maxRoots+1 || st[0].Root != "." {
		t.Errorf("want %d package roots and the directory's for the rest, got %d: %+v", maxRoots, len(st), st)
	}
}

func TestAFileReadJustBeforeAnEditKeepsItsOldWarningsOutOfTheReport(t *testing.T) {
	gate := filepath.Join(t.TempDir(), "gate")
	m, dir := scriptedManager(t, map[string]string{"b.txt": "WARN: old in b\n", "a.txt": "ok\n"}, generous, scripted(scriptedlsp.ModeSlow, scriptedlsp.GateFile(gate)))
	m.Open("b.txt") // read_file b.txt: the server has not checked it yet
	writeFiles(t, dir, map[string]string{"a.txt": "ok\nERROR: new in a\n"})
	done := make(chan Report, 1)
	go func() { done <- m.Change(context.Background(), []string{"a.txt"}) }()
	writeFiles(t, filepath.Dir(gate), map[string]string{"gate": ""}) // the server now publishes, b.txt first
	rep := <-done
	if len(rep.New) != 1 || rep.New[0].Message != "new in a" {
		t.Errorf("want only a.txt's new error, got %+v", rep)
	}
}
