//go:build linux

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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

	res := Run(t, Invocation{Dir: dir, Args: AgentArgs(srv, "-p", "what does @main.go do? see @docs/ and @gone.txt")})
	if res.Code != 0 || !strings.Contains(res.Stdout, "It does nothing.") {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
	}
	want := "what does @main.go do? see @docs/ and @gone.txt\n\n" +
		"<attached path=\"main.go\">\n     1\tpackage main\n     2\t\n     3\tfunc main() {}\n</attached>\n\n" +
		"<attached path=\"docs/\">\ndocs/guide.md\n</attached>"
	if got := LastUserText(srv.Requests()[0]); got != want {
		t.Errorf("the prompt sent is\n%q\nwant\n%q", got, want)
	}

	res = Run(t, Invocation{Dir: dir, Stdin: strings.NewReader("explain @main.go\n"), Args: AgentArgs(srv, "-p")})
	if got := LastUserText(srv.Requests()[1]); res.Code != 0 || !strings.Contains(got, "<attached path=\"main.go\">") {
		t.Errorf("a prompt from standard input: exit %d, sent %q", res.Code, got)
	}

	res = Run(t, Invocation{Dir: dir, Stdin: strings.NewReader("log: user @main.go logged in\n"), Args: AgentArgs(srv, "-p", "summarise")})
	if got := LastUserText(srv.Requests()[2]); res.Code != 0 || strings.Contains(got, "<attached") {
		t.Errorf("an @ word in piped data was attached: exit %d, sent %q", res.Code, got)
	}
}

// In the interface, "@" completes a path as it is typed (Tab takes the
// best match) and the file is attached to the prompt the server receives.
func TestMentionCompletionAndAttachmentInTheInterface(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "internal", "zoo"), 0o755)
	os.WriteFile(filepath.Join(dir, "internal", "zoo", "walrus.go"), []byte("package zoo\n\nconst Tusks = 2\n"), 0o644)
	os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("*.log\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "walrus.log"), []byte("noise\n"), 0o644)
	srv := scripted.New(t, scripted.Text("Two tusks."))
	s := StartTmux(t, dir, nil, []string{"--base-url", srv.URL(), "--model", "scripted-model", "--max-retries", "0"})
	s.WaitFor("Ask about this repository")
	s.Text("how many tusks in @walr")
	screen := s.WaitFor("@internal/zoo/walrus.go")
	if strings.Contains(screen, "walrus.log") {
		t.Errorf("an ignored file is offered:\n%s", screen)
	}
	s.Keys("Tab")
	s.WaitFor("how many tusks in @internal/zoo/walrus.go")
	s.Keys("Enter")
	screen = s.WaitFor("Two tusks.")
	if !strings.Contains(screen, "Attached internal/zoo/walrus.go") {
		t.Errorf("no note of the attachment:\n%s", screen)
	}
	want := "how many tusks in @internal/zoo/walrus.go\n\n<attached path=\"internal/zoo/walrus.go\">\n" +
		"     1\tpackage zoo\n     2\t\n     3\tconst Tusks = 2\n</attached>"
	if got := LastUserText(srv.Requests()[0]); got != want {
		t.Errorf("the server received\n%q\nwant\n%q", got, want)
	}
	s.Quit()
}
