//go:build linux

package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/shell"
	"github.com/agent-dev/agent/tools/shell/sandbox/helperbin"
)

// Commands start the small helper embedded in the agent, from its sealed
// memfd, and not the agent's own binary.
func TestCommandsStartTheEmbeddedHelper(t *testing.T) {
	needLandlock(t)
	embedded, err := helperbin.File()
	if embedded == nil {
		t.Skipf("no helper embedded here (%v)", err)
	}
	sb, err := New(Policy{Mode: WorkspaceWrite, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	if !sb.Status().Enforced {
		t.Skipf("no sandbox here: %s", sb.Status().Reason)
	}
	cmd, err := sb.Build(shell.Spec{Command: "true", Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(cmd.ExtraFiles); n == 0 || cmd.ExtraFiles[n-1] != embedded || cmd.Path != fmt.Sprintf("/proc/self/fd/%d", 2+n) {
		t.Fatalf("the command's helper is %s with %v, want the embedded one, its last descriptor", cmd.Path, cmd.ExtraFiles)
	}
	runTrue(t, sb)
}

// runTrue runs `echo ok` through sb as the bash tool does.
func runTrue(t *testing.T, sb *Sandbox) {
	t.Helper()
	dir := sb.policy.Dir
	tool := shell.New(shell.Config{Dir: dir, Build: sb.Build, Start: sb.Start, Guard: sb.Guard, KillGrace: time.Second})
	raw, _ := json.Marshal(map[string]string{"command": "echo ok"})
	res, err := tool.Run(context.Background(), tools.Call{Args: raw})
	if err != nil || res.IsError || !strings.HasPrefix(res.Content, "ok\n") {
		t.Fatalf("echo ok in the sandbox: %v %q", err, res.Content)
	}
}

// A helper the system will not execute (here a file without the execute
// bit; in the field a memfd a security module refuses) costs the session
// nothing but time: the probe tries again with the agent's own binary,
// which every later command starts, and finds namespaces as before. (The
// network on: with it off, a kernel of Landlock ABI 1-3 probes in New,
// before the test could name the helper.)
func TestAHelperThatCannotStartFallsBackToTheAgentsBinary(t *testing.T) {
	needLandlock(t)
	sb, err := New(Policy{Mode: WorkspaceWrite, Dir: t.TempDir(), Network: true})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	l := sb.impl.(*linux)
	if l.begun() {
		t.Fatal("the sandbox was set up in New, before the test named its helper")
	}
	refused := filepath.Join(t.TempDir(), "helper")
	if err := os.WriteFile(refused, []byte("\x7fELF"), 0o644); err != nil {
		t.Fatal(err)
	}
	l.exe = refused
	st := sb.Status()
	if !st.Enforced {
		t.Skipf("no sandbox here: %s", st.Reason)
	}
	if !st.UserNamespaces {
		if strings.Contains(st.UserNamespacesErr, refused) {
			t.Fatalf("the probe gave up on the refused helper: %s", st.UserNamespacesErr)
		}
		t.Skipf("no user namespaces here: %s", st.UserNamespacesErr)
	}
	if got := l.helper(); got != selfExe {
		t.Fatalf("the helper after the fall-back: %s, want %s", got, selfExe)
	}
	runTrue(t, sb)
}
