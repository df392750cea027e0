package headless

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// exported is the part of agent sessions export's JSON the tests read.
type exported struct {
	Session struct {
		ID           string `json:"id"`
		Status       string `json:"status"`
		SystemPrompt string `json:"system_prompt"`
	} `json:"session"`
	Messages []struct {
		Role string `json:"role"`
	} `json:"messages"`
	ToolCalls []struct {
		Name string `json:"name"`
	} `json:"tool_calls"`
}

// readExport parses the file --export-session wrote.
func readExport(t *testing.T, path string) (exported, []byte) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("--export-session wrote nothing: %v", err)
	}
	var exp exported
	if err := json.Unmarshal(data, &exp); err != nil {
		t.Fatalf("the export is not JSON: %v\n%s", err, data)
	}
	return exp, data
}

// An answered run writes its session as agent sessions export prints it.
func TestExportSessionOfAnAnsweredRun(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "l1", Name: "list_files", Arguments: `{}`}),
		scripted.Text("One file."),
	)
	dir, db := e2e.Project(t)
	e2e.WriteFile(t, dir, "a.txt", "a\n")
	file := filepath.Join(t.TempDir(), "session.json")
	res := e2e.RunOK(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "-p", "--db", db, "--output-format", "json",
		"--export-session", file, "list the files")})
	exp, data := readExport(t, file)
	if exp.Session.ID != e2e.SessionIDOf(t, res.Stdout) || exp.Session.Status != "completed" || exp.Session.SystemPrompt == "" ||
		len(exp.Messages) != 4 || len(exp.ToolCalls) != 1 || exp.ToolCalls[0].Name != "list_files" {
		t.Errorf("the export %s", data)
	}
	// The same document agent sessions export prints.
	again := e2e.RunOK(t, e2e.Invocation{Dir: dir, Args: []string{"sessions", "export", "--db", db, exp.Session.ID}})
	if again.Stdout != string(data) {
		t.Errorf("--export-session wrote\n%s\nagent sessions export prints\n%s", data, again.Stdout)
	}
}

// A run that fails (the model's server goes away after the first answer's
// tool call) still writes its session, and its exit code is the failure's.
func TestExportSessionOfAFailedRun(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "l1", Name: "list_files", Arguments: `{}`}),
		scripted.Error(500, "the model fell over"),
	)
	dir, db := e2e.Project(t)
	file := filepath.Join(t.TempDir(), "session.json")
	res := e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "-p", "--db", db, "--export-session", file, "list the files")})
	if res.Code != 1 {
		t.Fatalf("exit %d, stderr %q; want 1", res.Code, res.Stderr)
	}
	exp, data := readExport(t, file)
	if exp.Session.Status != "failed" || len(exp.Messages) != 3 || len(exp.ToolCalls) != 1 {
		t.Errorf("the export of a failed run %s", data)
	}
}

// A file that cannot be written fails an otherwise good run (exit 1) and
// leaves another failure's exit code alone; stderr says why either way.
func TestExportSessionThatCannotBeWritten(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "no", "such", "dir", "session.json")
	for _, tt := range []struct {
		name  string
		reply scripted.Reply
		args  []string
		code  int
	}{
		{"answered", scripted.Text("Hi."), nil, 1},
		{"step limit", scripted.ToolCalls(scripted.Call{ID: "l1", Name: "list_files", Arguments: `{}`}), []string{"--max-steps", "1"}, 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := scripted.New(t, tt.reply)
			args := e2e.AgentArgs(srv, append([]string{"-p", "--export-session", file}, append(tt.args, "hi")...)...)
			res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Args: args})
			if res.Code != tt.code || strings.Count(res.Stderr, "--export-session") != 1 || !strings.Contains(res.Stderr, "no such file") {
				t.Errorf("exit %d, stderr %q; want %d and the write's failure once", res.Code, res.Stderr, tt.code)
			}
		})
	}
}
