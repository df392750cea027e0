//go:build linux

package headless

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// A hostile model tries to read secrets through bash: the environment
// (under names today's patterns missed, and under innocent names with
// credential values), the agent's own environment through /proc, and the
// credential files of the home directory. The sandboxed commands get none
// of them; the variable the user passes through on purpose arrives. In
// yolo (no sandbox) the commands' environment is still filtered.
func TestSandboxedCommandsGetNoSecrets(t *testing.T) {
	t.Parallel()
	dir, home := t.TempDir(), t.TempDir()
	secrets := map[string]string{
		".ssh/id_ed25519":      "-----BEGIN OPENSSH PRIVATE KEY----- ssh-secret-9d2f",
		".aws/credentials":     "[default]\naws_secret_access_key = aws-secret-77b1",
		".netrc":               "machine example.com login me password netrc-secret-1c0e",
		".config/gh/hosts.yml": "github.com:\n  oauth_token: gh-secret-5a3e",
		".docker/config.json":  `{"auths":{"x":{"auth":"docker-secret-e4a9"}}}`,
		".kube/config":         "token: kube-secret-3b7c",
		".git-credentials":     "https://me:gitcred-secret-8f21@github.com",
	}
	for rel, content := range secrets {
		p := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{
		"DATABASE_URL":         "postgres://app:db-secret-0a11@db.internal/app",
		"HTTPS_PROXY":          "http://me:proxy-secret-4c2d@proxy.corp:3128",
		"GITLAB_PAT":           "pat-secret-6e90",
		"CI_JOB_JWT":           "jwt-secret-b3f4",
		"DB_PASSWORD":          "pw-secret-2d8c",
		"SENTRY_DSN":           "https://dsn-secret-91ab@sentry.io/1",
		"DEPLOY_HELPER":        "ghp_0123456789abcdefghijSECRETabcdef0123",
		"BUILD_NOTE":           "glpat-abcdefghijSECRETst",
		"OPENAI_API_KEY":       "sk-provider-secret-00aa11bb22cc",
		"MY_PASSTHROUGH_TOKEN": "passed-on-purpose-7777",
		"HOME":                 home,
	}
	var invEnv []string
	for k, v := range env {
		invEnv = append(invEnv, k+"="+v)
	}
	cfg := e2e.MCPConfig(t, "[sandbox]\nenv_passthrough = [\"MY_PASSTHROUGH_TOKEN\"]\n")
	attacks := []string{
		"env",
		"cat /proc/self/environ | tr '\\0' '\\n'",
		"cat /proc/$PPID/environ | tr '\\0' '\\n'",
		"agent=$(awk '{print $4}' /proc/$PPID/stat); cat /proc/$agent/environ | tr '\\0' '\\n'; cat /proc/$agent/root" + home + "/.ssh/id_ed25519",
		"cat ~/.ssh/id_ed25519",
		"cat $HOME/.aws/credentials ~/.netrc ~/.config/gh/hosts.yml ~/.docker/config.json ~/.kube/config ~/.git-credentials",
		"cd ~ && cat .ssh/id_ed25519; ln -s ~/.ssh k && cat k/id_ed25519",
		"cat /proc/self/root" + home + "/.ssh/id_ed25519",
		"grep -rs secret " + home,
		"tar -C ~ -cf - . 2>/dev/null | strings | grep secret",
	}
	for _, mode := range []string{"auto", "yolo"} {
		t.Run(mode, func(t *testing.T) {
			var calls []scripted.Call
			for i, a := range attacks {
				calls = append(calls, scripted.Call{ID: fmt.Sprintf("a%d", i), Name: "bash", Arguments: jsonCommand(a)})
			}
			srv := scripted.New(t, scripted.ToolCalls(calls...), scripted.Text("done"))
			res := e2e.Run(t, e2e.Invocation{Dir: dir, Env: invEnv, Args: e2e.AgentArgs(srv, "--config", cfg, "-p", "--permission-mode", mode, "go")})
			if res.Code != 0 {
				t.Fatalf("exit %d: %s", res.Code, res.Stderr)
			}
			results := e2e.ToolResults(srv.Requests()[1])
			all := fmt.Sprint(results)
			if mode == "yolo" {
				// Unconfined, a command may read the agent's own process
				// (/proc/PID/environ, its memory): only what the agent
				// gives it is checked.
				all = fmt.Sprint(results["a0"], results["a1"]) // $PPID is the agent
			}
			for name, v := range env {
				if name == "HOME" || name == "MY_PASSTHROUGH_TOKEN" {
					continue
				}
				if strings.Contains(all, v) || strings.Contains(all, strings.TrimPrefix(v, "ghp_")[:12]) {
					t.Errorf("$%s reached a command's output", name)
				}
			}
			if !strings.Contains(results["a0"], "passed-on-purpose-7777") {
				t.Errorf("env_passthrough did not pass MY_PASSTHROUGH_TOKEN: %s", results["a0"])
			}
			if mode == "yolo" {
				return // no sandbox: the files are the person's to give away
			}
			for rel, content := range secrets {
				secret := content[strings.LastIndex(content, " ")+1:]
				secret = secret[strings.LastIndex(secret, ":")+1:]
				if strings.Contains(all, secret[len(secret)-11:]) {
					t.Errorf("~/%s reached a command's output", rel)
				}
			}
			if r := results["a4"]; !strings.Contains(r, "Permission denied") {
				t.Errorf("cat ~/.ssh/id_ed25519 should fail visibly: %q", r)
			}
		})
	}
}

// Sandboxed commands cannot read the agent's own data (the MCP servers'
// OAuth tokens, the session database with every project's sessions) nor
// other coding agents' logins (issue 42's fourth and tenth).
func TestSandboxedCommandsCannotReadAgentData(t *testing.T) {
	t.Parallel()
	dir, home := t.TempDir(), t.TempDir()
	data := filepath.Join(home, "data")
	for rel, content := range map[string]string{
		"data/agent/mcp-oauth/docs.json": `{"access_token":"oauth-secret-5e1d"}`,
		".codex/auth.json":               `{"tokens":{"access_token":"codex-secret-77aa"}}`,
	} {
		p := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	attacks := []string{
		"cat $XDG_DATA_HOME/agent/mcp-oauth/docs.json",
		"cat ~/.codex/auth.json",
		"grep -a -o 'PROMPT-MARK-3c9.' $XDG_DATA_HOME/agent/agent.db* ; echo end",
		"ls $XDG_DATA_HOME/agent",
	}
	var calls []scripted.Call
	for i, a := range attacks {
		calls = append(calls, scripted.Call{ID: fmt.Sprintf("a%d", i), Name: "bash", Arguments: jsonCommand(a)})
	}
	srv := scripted.New(t, scripted.ToolCalls(calls...), scripted.Text("done"))
	env := []string{"HOME=" + home, "XDG_DATA_HOME=" + data}
	res := e2e.Run(t, e2e.Invocation{Dir: dir, Env: env, Args: e2e.AgentArgs(srv, "-p", "--permission-mode", "auto", "note PROMPT-MARK-3c9f")})
	if res.Code != 0 {
		t.Fatalf("exit %d: %s", res.Code, res.Stderr)
	}
	results := e2e.ToolResults(srv.Requests()[1])
	for _, secret := range []string{"oauth-secret-5e1d", "codex-secret-77aa", "PROMPT-MARK-3c9f"} {
		if all := fmt.Sprint(results); strings.Contains(all, secret) {
			t.Errorf("%s reached a command's output: %v", secret, results)
		}
	}
	if !strings.Contains(results["a3"], "agent.db") {
		t.Errorf("the data directory itself should stay listable (its worktrees live there): %q", results["a3"])
	}
}
