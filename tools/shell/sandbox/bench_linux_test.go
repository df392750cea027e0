//go:build linux

package sandbox

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/agent-dev/agent/tools/shell"
)

// BenchmarkCommand measures a whole bash tool call, unsandboxed and
// sandboxed (workspace-write, network off: Landlock, user, mount and network
// namespaces, read-only remounts, the subreaper), for `true` and a short
// `ls`. The helper is the test binary, or the agent binary named by
// AGENT_SANDBOX_HELPER (bench/sandbox.sh builds it), which is what users run.
func BenchmarkCommand(b *testing.B) {
	if _, err := os.Stat("/usr/bin/bash"); err != nil {
		b.Skip("no bash")
	}
	helperExe := os.Getenv("AGENT_SANDBOX_HELPER")
	dir := b.TempDir()
	for _, name := range []string{"a.go", "b.go", "README.md"} {
		os.WriteFile(dir+"/"+name, []byte("x\n"), 0o644)
	}
	for _, mode := range []Mode{Off, WorkspaceWrite} {
		sb, err := New(Policy{Mode: mode, Dir: dir})
		if err != nil {
			b.Fatal(err)
		}
		if mode != Off && !sb.Status().Enforced {
			b.Skipf("no sandbox here: %s", sb.Status().Reason)
		}
		if l, ok := sb.impl.(*linux); ok && helperExe != "" {
			l.exe = helperExe // production starts /proc/self/exe: the agent
		}
		tool := shell.New(shell.Config{Dir: dir, Build: sb.Build})
		for _, command := range []string{"true", "ls"} {
			raw, _ := json.Marshal(map[string]string{"command": command})
			b.Run(string(mode)+"/"+command, func(b *testing.B) {
				for b.Loop() {
					res, err := tool.Run(context.Background(), raw)
					if err != nil || res.Meta["exit_code"] != 0 {
						b.Fatalf("%s: %v %s", command, err, res.Content)
					}
				}
			})
		}
		sb.Close()
	}
}
