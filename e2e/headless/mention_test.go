//go:build linux

package headless

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// agent -p "@file ..." sends the file's content, as read_file shows it,
// attached to the prompt; a directory's listing for @dir/; a missing path
// stays plain text; mentions in a prompt read from standard input work too,
// while a pipe given beside -p is data whose @ words stay text.
func TestHeadlessPromptAttachesMentions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)
	os.MkdirAll(filepath.Join(dir, "docs"), 0o755)
	os.WriteFile(filepath.Join(dir, "docs", "guide.md"), []byte("# Guide\n"), 0o644)
	srv := scripted.New(t, scripted.Text("It does nothing."), scripted.Text("Seen."), scripted.Text("Data."))

	res := e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "-p", "what does @main.go do? see @docs/ and @gone.txt")})
	if res.Code != 0 || !strings.Contains(res.Stdout, "It does nothing.") {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
	}
	want := "what does @main.go do? see @docs/ and @gone.txt\n\n" +
		"<attached path=\"main.go\">\n     1\tpackage main\n     2\t\n     3\tfunc main() {}\n</attached>\n\n" +
		"<attached path=\"docs/\">\ndocs/guide.md\n</attached>"
	if got := e2e.LastUserText(srv.Requests()[0]); got != want {
		t.Errorf("the prompt sent is\n%q\nwant\n%q", got, want)
	}

	res = e2e.Run(t, e2e.Invocation{Dir: dir, Stdin: strings.NewReader("explain @main.go\n"), Args: e2e.AgentArgs(srv, "-p")})
	if got := e2e.LastUserText(srv.Requests()[1]); res.Code != 0 || !strings.Contains(got, "<attached path=\"main.go\">") {
		t.Errorf("a prompt from standard input: exit %d, sent %q", res.Code, got)
	}

	res = e2e.Run(t, e2e.Invocation{Dir: dir, Stdin: strings.NewReader("log: user @main.go logged in\n"), Args: e2e.AgentArgs(srv, "-p", "summarise")})
	if got := e2e.LastUserText(srv.Requests()[2]); res.Code != 0 || strings.Contains(got, "<attached") {
		t.Errorf("an @ word in piped data was attached: exit %d, sent %q", res.Code, got)
	}
}
