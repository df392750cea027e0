//go:build linux

// Package lsp runs the agent against real language servers (gopls and
// typescript-language-server, which .ci/run installs) and the scripted
// one: the diagnostics an edit introduced reach the model, a fix reports
// none, old warnings stay out, a server that never answers does not hold
// the turn, and the lsp tool navigates a Go module.
package lsp

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
	"github.com/agent-dev/agent/internal/scriptedlsp"
)

func TestMain(m *testing.M) {
	scriptedlsp.Main() // the test binary is the scripted language server when asked
	e2e.Main(m)
}

// need returns the path of a language server's command: on PATH, else
// in the npm packages .ci/run installs. It skips the test when the server
// is missing, and fails it on CI.
func need(t *testing.T, command string) string {
	t.Helper()
	if p, err := exec.LookPath(command); err == nil {
		return p
	}
	p := filepath.Join(e2e.Root(t), "out", "lsp-servers", "node_modules", ".bin", command)
	if _, err := os.Stat(p); err == nil {
		return p
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%s is not installed (.ci/run installs it)", command)
	}
	t.Skipf("%s is not installed", command)
	return ""
}

// config writes a config file whose [lsp] waits up to a minute for the
// servers (a wait that ends at their answer; the default 2 s is a
// product budget a busy CI machine may miss) plus extra, and returns its
// path.
func config(t *testing.T, extra string) string {
	t.Helper()
	dir := t.TempDir()
	e2e.WriteFile(t, dir, "config.toml", "[lsp]\ndiagnostics_wait = \"60s\"\n"+extra)
	return filepath.Join(dir, "config.toml")
}

// run runs the agent headless in dir with the config cfg against srv.
func run(t *testing.T, dir, cfg string, srv *scripted.Server, prompt string) e2e.Result {
	t.Helper()
	return e2e.RunOK(t, e2e.Invocation{Dir: dir, Env: []string{"GOFLAGS=-mod=mod", "GOTOOLCHAIN=local", "AGENT_LSP=on"},
		Args: e2e.AgentArgs(srv, "--config", cfg, "--db", filepath.Join(t.TempDir(), "a.db"), "-p", "--output-format", "stream-json", prompt)})
}

func TestGoplsTellsTheModelWhatItsEditBrokeAndThatTheFixFixedIt(t *testing.T) {
	t.Parallel()
	gopls := need(t, "gopls")
	dir := t.TempDir()
	e2e.WriteFile(t, dir, "go.mod", "module example.com/calc\n\ngo 1.22\n")
	e2e.WriteFile(t, dir, "add.go", "package calc\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n")
	e2e.WriteFile(t, dir, "use.go", "package calc\n\nfunc double(x int) int { return Add(x, x) }\n")
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "r", Name: "read_file", Arguments: `{"path":"add.go"}`}),
		scripted.ToolCalls(scripted.Call{ID: "break", Name: "edit_file", Arguments: `{"path":"add.go","old_string":"a, b int) int { return a + b }","new_string":"a, b, c int) int { return a + b + c }"}`}),
		scripted.ToolCalls(scripted.Call{ID: "fix", Name: "edit_file", Arguments: `{"path":"add.go","old_string":"a, b, c int) int { return a + b + c }","new_string":"a, b int) int { return a + b }"}`}),
		scripted.Text("done"),
	)
	res := run(t, dir, config(t, fmt.Sprintf("[lsp.gopls]\ncommand = %q\n", gopls)), srv, "give Add a third operand")
	broke := e2e.ToolResults(srv.Requests()[2])["break"]
	if !strings.Contains(broke, "<diagnostics>") || !strings.Contains(broke, "use.go:3:") || !strings.Contains(broke, "not enough arguments in call to Add") {
		t.Errorf("the breaking edit's result does not name the error in use.go:\n%s", broke)
	}
	if fixed := e2e.ToolResults(srv.Requests()[3])["fix"]; strings.Contains(fixed, "<diagnostics>") {
		t.Errorf("the fix reports diagnostics:\n%s", fixed)
	}
	found := false
	for _, o := range e2e.JSONLines(t, res.Stdout) {
		if o["type"] == "tool_call_finished" && o["id"] == "break" {
			meta, _ := o["meta"].(map[string]any)
			d, _ := meta["diagnostics"].(map[string]any)
			news, _ := d["new"].([]any)
			found = len(news) == 1
		}
	}
	if !found {
		t.Errorf("stream-json's tool_call_finished of the breaking edit lacks meta.diagnostics.new:\n%s", res.Stdout)
	}
}

func TestGoplsReportsOnlyTheNewErrorAmongFiftyOldWarnings(t *testing.T) {
	t.Parallel()
	gopls := need(t, "gopls")
	dir := t.TempDir()
	var body strings.Builder
	for i := range 50 {
		fmt.Fprintf(&body, "\tfmt.Printf(\"%%d\\n\", \"w%d\")\n", i) // vet's printf check: a warning each
	}
	e2e.WriteFile(t, dir, "go.mod", "module example.com/w\n\ngo 1.22\n")
	e2e.WriteFile(t, dir, "w.go", "package w\n\nimport \"fmt\"\n\nfunc Warn() {\n"+body.String()+"}\n")
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "r", Name: "read_file", Arguments: `{"path":"w.go"}`}),
		scripted.ToolCalls(scripted.Call{ID: "e", Name: "edit_file", Arguments: `{"path":"w.go","old_string":"func Warn() {\n","new_string":"func Warn() {\n\tundefinedCall()\n"}`}),
		scripted.Text("done"),
	)
	run(t, dir, config(t, fmt.Sprintf("[lsp.gopls]\ncommand = %q\n", gopls)), srv, "call it")
	got := e2e.ToolResults(srv.Requests()[2])["e"]
	if !strings.Contains(got, "This change introduced 1 error (gopls):\nw.go:6:2: error: undefined: undefinedCall") || strings.Contains(got, "warning") {
		t.Errorf("want the one new error, got:\n%s", got)
	}
}

func TestTypeScriptLanguageServerTellsTheModelWhatItsEditBroke(t *testing.T) {
	t.Parallel()
	tsls := need(t, "typescript-language-server")
	dir := t.TempDir()
	e2e.WriteFile(t, dir, "package.json", `{"name": "calc", "private": true}`+"\n")
	e2e.WriteFile(t, dir, "tsconfig.json", `{"compilerOptions": {"strict": true, "target": "es2020", "module": "commonjs"}}`+"\n")
	e2e.WriteFile(t, dir, "add.ts", "export function add(a: number, b: number): number {\n  return a + b;\n}\n")
	e2e.WriteFile(t, dir, "use.ts", "import { add } from \"./add\";\n\nexport const four = add(2, 2);\n")
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "r1", Name: "read_file", Arguments: `{"path":"add.ts"}`}, scripted.Call{ID: "r2", Name: "read_file", Arguments: `{"path":"use.ts"}`}),
		scripted.ToolCalls(scripted.Call{ID: "e", Name: "edit_file", Arguments: `{"path":"add.ts","old_string":"b: number): number {\n  return a + b;","new_string":"b: number, c: number): number {\n  return a + b + c;"}`}),
		scripted.ToolCalls(scripted.Call{ID: "fix", Name: "edit_file", Arguments: `{"path":"add.ts","old_string":"b: number, c: number): number {\n  return a + b + c;","new_string":"b: number): number {\n  return a + b;"}`}),
		scripted.Text("done"),
	)
	run(t, dir, config(t, fmt.Sprintf("[lsp.typescript-language-server]\ncommand = %q\n", tsls)), srv, "give add a third operand")
	got := e2e.ToolResults(srv.Requests()[2])["e"]
	if !strings.Contains(got, "use.ts:3:21: error: Expected 3 arguments, but got 2.") || strings.Contains(got, "had not finished") {
		t.Errorf("the edit's result does not name the error in use.ts, or says the server did not finish:\n%s", got)
	}
	// The server says nothing of a file whose diagnostics did not change,
	// nor versions: its silence after the fix is the answer.
	if fixed := e2e.ToolResults(srv.Requests()[3])["fix"]; strings.Contains(fixed, "<diagnostics>") {
		t.Errorf("the fix reports diagnostics:\n%s", fixed)
	}
}

func TestTheLspToolFindsADefinitionAndItsReferencesInAGoModule(t *testing.T) {
	t.Parallel()
	gopls := need(t, "gopls")
	dir := t.TempDir()
	e2e.WriteFile(t, dir, "go.mod", "module example.com/calc\n\ngo 1.22\n")
	e2e.WriteFile(t, dir, "add.go", "package calc\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n")
	e2e.WriteFile(t, dir, "use.go", "package calc\n\nfunc double(x int) int { return Add(x, x) }\n\nfunc triple(x int) int { return Add(Add(x, x), x) }\n")
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "def", Name: "lsp", Arguments: `{"operation":"definition","path":"use.go","line":3,"symbol":"Add"}`},
			scripted.Call{ID: "refs", Name: "lsp", Arguments: `{"operation":"references","path":"add.go","line":4,"symbol":"Add"}`}),
		scripted.Text("done"),
	)
	run(t, dir, config(t, fmt.Sprintf("[lsp.gopls]\ncommand = %q\n", gopls))+"", srv, "where is Add used?")
	results := e2e.ToolResults(srv.Requests()[1])
	if got := results["def"]; got != "add.go:4:6: func Add(a, b int) int { return a + b }\n" {
		t.Errorf("definition: %q", got)
	}
	for _, want := range []string{"add.go:4:6:", "use.go:3:33:", "use.go:5:33:", "use.go:5:37:"} {
		if !strings.Contains(results["refs"], want) {
			t.Errorf("references lack %s:\n%s", want, results["refs"])
		}
	}
}

func TestAServerThatNeverAnswersSaysSoAndTheTurnGoesOn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	e2e.WriteFile(t, dir, "a.txt", "ok\n")
	argv, env := scriptedlsp.Command(scriptedlsp.ModeHang)
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "e", Name: "write_file", Arguments: `{"path":"new.txt","content":"ERROR: broken\n"}`}),
		scripted.Text("done"),
	)
	var quoted []string
	for _, a := range argv[1:] {
		quoted = append(quoted, fmt.Sprintf("%q", a))
	}
	var envTOML []string
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		envTOML = append(envTOML, fmt.Sprintf("%q = %q", k, v))
	}
	cfg := filepath.Join(t.TempDir(), "config.toml")
	e2e.WriteFile(t, filepath.Dir(cfg), "config.toml", fmt.Sprintf("[lsp]\ndiagnostics_wait = \"300ms\"\n\n[lsp.scripted]\ncommand = %q\nargs = [%s]\nextensions = [\".txt\"]\nenv = { %s }\n",
		argv[0], strings.Join(quoted, ", "), strings.Join(envTOML, ", ")))
	res := run(t, dir, cfg, srv, "write it")
	got := e2e.ToolResults(srv.Requests()[1])["e"]
	if !strings.Contains(got, "scripted is still starting (waited ") {
		t.Errorf("the result does not say the server's state:\n%s", got)
	}
	if !strings.Contains(res.Stdout, `"done"`) {
		t.Errorf("the turn did not finish:\n%s", res.Stdout)
	}
}

// scriptedLSPJSON is a repository's .lsp.json (Claude Code's plugin
// format) that runs the scripted server on .txt files.
func scriptedLSPJSON(t *testing.T) string {
	t.Helper()
	argv, env := scriptedlsp.Command(scriptedlsp.ModeNormal)
	envMap := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		envMap[k] = v
	}
	data, err := json.Marshal(map[string]any{"scripted": map[string]any{"command": argv[0], "args": argv[1:], "env": envMap,
		"extensionToLanguage": map[string]string{".txt": "plaintext"}}})
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestARepositorysLanguageServerRunsOnlyOnceTrusted(t *testing.T) {
	t.Parallel()
	for _, trusted := range []bool{false, true} {
		t.Run(fmt.Sprintf("trusted=%v", trusted), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			e2e.WriteFile(t, dir, ".lsp.json", scriptedLSPJSON(t))
			srv := scripted.New(t,
				scripted.ToolCalls(scripted.Call{ID: "w", Name: "write_file", Arguments: `{"path":"new.txt","content":"ERROR: broken\n"}`}),
				scripted.Text("done"),
			)
			args := []string{"--config", config(t, ""), "--db", filepath.Join(t.TempDir(), "a.db"), "-p"}
			if trusted {
				args = append(args, "--trust-project")
			}
			e2e.RunOK(t, e2e.Invocation{Dir: dir, Env: []string{"AGENT_LSP=on"}, Args: e2e.AgentArgs(srv, append(args, "write it")...)})
			got := e2e.ToolResults(srv.Requests()[1])["w"]
			if trusted && !strings.Contains(got, "new.txt:1:1: error: broken") {
				t.Errorf("the trusted server's diagnostics are missing:\n%s", got)
			}
			if !trusted && (strings.Contains(got, "error: broken") || !strings.Contains(got, "scripted does not start: scripted from .lsp.json runs this repository's command and is not trusted")) {
				t.Errorf("the untrusted server ran, or the result does not say why not:\n%s", got)
			}
		})
	}
}
