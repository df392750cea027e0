package protocols

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// The Claude Agent SDK's protocol (--input-format stream-json) is a front-end like -p: a trusted project's hooks
// run there too (UserPromptSubmit's context reaches the model, SessionEnd runs when the host closes stdin), and a
// custom command typed as a user message expands.
func TestHooksAndCommandsInTheSDKProtocol(t *testing.T) {
	t.Parallel()
	settings := `{"hooks": {
	  "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo 'The deploy branch is release-7.'"}]}],
	  "SessionEnd": [{"hooks": [{"type": "command", "command": "cat > \"$CLAUDE_PROJECT_DIR/end.json\""}]}]
	}}`
	dir := e2e.ExtProject(t, map[string]string{".claude/settings.json": settings,
		".claude/commands/review.md": "---\ndescription: Review a file\n---\nReview $ARGUMENTS for bugs.\n"})
	srv := scripted.New(t, scripted.Text("release-7"), scripted.Text("Looks fine."))
	in := `{"type":"user","message":{"role":"user","content":"which branch deploys?"}}` + "\n" +
		`{"type":"user","message":{"role":"user","content":"/review main.go"}}` + "\n"
	res := e2e.Run(t, e2e.Invocation{Dir: dir, Stdin: strings.NewReader(in), Args: e2e.AgentArgs(srv, "--trust-project",
		"--input-format", "stream-json", "--output-format", "stream-json", "--verbose")})
	if res.Code != 0 {
		t.Fatalf("exit %d, stderr %q", res.Code, res.Stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want one a turn; stderr %q", len(reqs), res.Stderr)
	}
	if got := e2e.LastUserText(reqs[0]); !strings.Contains(got, "The deploy branch is release-7.") {
		t.Errorf("the first turn's prompt %q lacks the UserPromptSubmit hook's context", got)
	}
	if got := e2e.LastUserText(reqs[1]); !strings.Contains(got, "Review main.go for bugs.") {
		t.Errorf("the second turn's prompt %q, want /review expanded", got)
	}
	if end, err := os.ReadFile(filepath.Join(dir, "end.json")); err != nil || !strings.Contains(string(end), `"hook_event_name":"SessionEnd"`) {
		t.Errorf("SessionEnd's hook got %q, %v", end, err)
	}
}
