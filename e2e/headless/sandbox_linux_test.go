//go:build linux

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

// outsideDir is a directory outside every root the sandbox lets commands
// write: not under the working directory and not under /tmp (writable, and
// where the repository itself may be cloned), so it is made in /var/tmp, or
// else in the home directory.
func outsideDir(t *testing.T) string {
	t.Helper()
	home, _ := os.UserHomeDir()
	for _, parent := range []string{"/var/tmp", home} {
		if parent == "" || strings.HasPrefix(parent, "/tmp") {
			continue
		}
		d, err := os.MkdirTemp(parent, "agent-e2e-outside-")
		if err != nil {
			continue
		}
		t.Cleanup(func() { os.RemoveAll(d) })
		return d
	}
	t.Skip("no directory outside /tmp to write to")
	return ""
}

// The real binary confines a headless command: it writes inside the working
// directory, not outside, and the decision says it ran in the sandbox.
func TestHeadlessCommandsRunInTheSandbox(t *testing.T) {
	t.Parallel()
	dir, outside := t.TempDir(), outsideDir(t)
	cmd := `echo in > inside.txt; echo evil > ` + outside + `/x; echo done`
	srv := scripted.New(t, scripted.ToolCalls(scripted.Call{ID: "b1", Name: "bash", Arguments: jsonCommand(cmd)}), scripted.Text("ok"))
	res := e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "-p", "--output-format", "stream-json", "go")})
	if res.Code != 0 {
		t.Fatalf("exit %d: %s", res.Code, res.Stderr)
	}
	got := e2e.ToolResults(srv.Requests()[1])["b1"]
	if _, err := os.Stat(filepath.Join(outside, "x")); err == nil {
		t.Fatalf("a sandboxed command wrote outside the working directory:\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "inside.txt")); err != nil {
		t.Errorf("the command could not write inside the working directory:\n%s", got)
	}
	if !strings.Contains(got, "Read-only file system") && !strings.Contains(got, "Permission denied") {
		t.Errorf("the refused write should show in the result:\n%s", got)
	}
	if d := e2e.Decisions(t, res.Stdout)["b1"]; !strings.Contains(d, "sandbox: workspace-write, network off") {
		t.Errorf("decision = %q, want the sandbox named", d)
	}
	srv = scripted.New(t, scripted.Text("ok"))
	e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "-p", "--tools", "all", "hi")})
	if def := e2e.ToolNamed(srv.Requests()[0], "bash"); def == nil || !strings.Contains(def.Function.Description, "Sandbox (workspace-write, network off)") {
		t.Errorf("the bash tool's description should tell the model about the sandbox: %+v", def)
	}
}

// A deny rule in the config refuses a command smuggled next to an allowed
// one, without running any of it, in auto and in yolo; yolo runs the rest
// unconfined.
func TestDenyRulesAndYolo(t *testing.T) {
	t.Parallel()
	dir, outside := t.TempDir(), outsideDir(t)
	keep := filepath.Join(dir, "keep")
	if err := os.WriteFile(keep, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	configHome := t.TempDir()
	config := filepath.Join(configHome, "agent", "config.toml")
	if err := os.MkdirAll(filepath.Dir(config), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config, []byte("[permissions]\nallow = [\"ls\"]\ndeny = [\"rm\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"XDG_CONFIG_HOME=" + configHome}
	for _, mode := range []string{"auto", "yolo"} {
		t.Run(mode, func(t *testing.T) {
			calls := scripted.ToolCalls(
				scripted.Call{ID: "d1", Name: "bash", Arguments: jsonCommand("ls && rm -f keep")},
				scripted.Call{ID: "d2", Name: "bash", Arguments: jsonCommand("echo $(rm -f keep)")},
				scripted.Call{ID: "d3", Name: "bash", Arguments: jsonCommand("bash -c 'r''m -f keep'")},
				scripted.Call{ID: "w", Name: "bash", Arguments: jsonCommand("echo out > " + outside + "/x")},
			)
			srv := scripted.New(t, calls, scripted.Text("ok"))
			res := e2e.Run(t, e2e.Invocation{Dir: dir, Env: env, Args: e2e.AgentArgs(srv, "-p", "--permission-mode", mode, "--output-format", "stream-json", "go")})
			if res.Code != 0 {
				t.Fatalf("exit %d: %s", res.Code, res.Stderr)
			}
			results, decided := e2e.ToolResults(srv.Requests()[1]), e2e.Decisions(t, res.Stdout)
			for _, id := range []string{"d1", "d2", "d3"} {
				if !strings.Contains(results[id], `rule "rm"`) || !strings.HasPrefix(decided[id], "denied by rule") {
					t.Errorf("%s: result %q, decision %q: want a denial by the rm rule", id, results[id], decided[id])
				}
			}
			if _, err := os.Stat(keep); err != nil {
				t.Fatalf("a denied rm ran: %v", err)
			}
			_, err := os.Stat(filepath.Join(outside, "x"))
			if wrote := err == nil; wrote != (mode == "yolo") {
				t.Errorf("%s: wrote outside = %v (result %q, decision %q)", mode, wrote, results["w"], decided["w"])
			}
		})
	}
}

func jsonCommand(c string) string {
	b, _ := json.Marshal(map[string]string{"command": c})
	return string(b)
}
