package mcp

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/oauthtest"
	"github.com/agent-dev/agent/internal/scripted"
)

// TestMCPLoginThenSession: `agent mcp login` authorizes agent with an
// OAuth-protected server (the browser, here the conformance adapter,
// follows the authorization URL to agent's loopback callback) and stores
// the tokens 0600 in the data directory; `agent mcp list` and a session
// then use them without a browser, the tool's result reaches the model,
// and the token is in no output and not in the session database; `agent
// mcp logout` forgets it, after which list says to log in.
func TestMCPLoginThenSession(t *testing.T) {
	t.Parallel()
	srv := oauthtest.Start(oauthtest.Options{})
	t.Cleanup(srv.Close)
	adapter := e2e.Adapter(t)
	data, dir := t.TempDir(), t.TempDir()
	cfg := e2e.MCPConfig(t, "[mcp.servers.remote]\nurl = \""+srv.URL()+"\"\n")
	// The browser records its environment, then follows the redirect.
	browser := filepath.Join(dir, "browser.sh")
	envDump := filepath.Join(dir, "browser-env")
	script := "#!/bin/sh\nenv > '" + envDump + "'\nexec '" + adapter + "' \"$1\"\n"
	if err := os.WriteFile(browser, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"XDG_DATA_HOME=" + data, "BROWSER=" + browser, "AGENT_CONFORMANCE_BROWSE=1",
		"OPENAI_API_KEY=sk-provider-key-value", "DEPLOY_SECRET=deploy-secret-value"}
	noBrowser := []string{"XDG_DATA_HOME=" + data, "BROWSER=" + filepath.Join(dir, "no-browser")}

	login := e2e.Run(t, e2e.Invocation{Dir: dir, Env: env, Args: []string{"mcp", "login", "remote", "--config", cfg}})
	if login.Code != 0 || !strings.Contains(login.Stdout, "Logged in to MCP server remote (1 tools)") {
		t.Fatalf("login: exit %d, stdout %q, stderr %q", login.Code, login.Stdout, login.Stderr)
	}
	if !strings.Contains(login.Stderr, "MCP server remote needs authorization: open http") {
		t.Errorf("login did not print the authorization URL: %q", login.Stderr)
	}
	if seen, _ := os.ReadFile(envDump); !strings.Contains(string(seen), "AGENT_CONFORMANCE_BROWSE=1") ||
		strings.Contains(string(seen), "sk-provider-key-value") || strings.Contains(string(seen), "deploy-secret-value") {
		t.Errorf("the browser's environment (want no provider key, no secret):\n%s", seen)
	}
	files, _ := filepath.Glob(filepath.Join(data, "agent", "mcp-oauth", "*.json"))
	if len(files) != 1 {
		t.Fatalf("stored authorizations %v, want one", files)
	}
	stored, _ := os.ReadFile(files[0])
	if st, _ := os.Stat(files[0]); runtime.GOOS != "windows" && st.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v, want 0600", st.Mode().Perm())
	}
	token := between(string(stored), `"access_token": "`, `"`)
	if token == "" {
		t.Fatalf("no access token in %s", files[0])
	}

	list := e2e.Run(t, e2e.Invocation{Dir: dir, Env: noBrowser, Args: []string{"mcp", "list", "--config", cfg}})
	if !strings.Contains(list.Stdout, "remote: running, 1 tools") {
		t.Errorf("list after login: %q %q", list.Stdout, list.Stderr)
	}

	model := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "pick", Name: "pick_tools", Arguments: `{"names":["mcp__remote__whoami"]}`}),
		scripted.ToolCalls(scripted.Call{ID: "who", Name: "mcp__remote__whoami", Arguments: `{}`}),
		scripted.Text("done"))
	session := e2e.Run(t, e2e.Invocation{Dir: dir, Env: noBrowser, Args: e2e.AgentArgs(model, "--config", cfg, "-p", "who am I?")})
	reqs := model.Requests()
	if session.Code != 0 || len(reqs) != 3 || !strings.Contains(e2e.ToolResults(reqs[2])["who"], "an authorized client") {
		t.Fatalf("session: exit %d, stdout %q, stderr %q", session.Code, session.Stdout, session.Stderr)
	}
	// The run left its writes in the write-ahead log (sessions.Store.Leave):
	// the database is both files.
	db, _ := os.ReadFile(filepath.Join(data, "agent", "agent.db"))
	wal, _ := os.ReadFile(filepath.Join(data, "agent", "agent.db-wal"))
	db = append(db, wal...)
	for name, text := range map[string]string{"login output": login.Stdout + login.Stderr, "session output": session.Stdout + session.Stderr,
		"session database": string(db), "list output": list.Stdout + list.Stderr} {
		if strings.Contains(text, token) {
			t.Errorf("the access token is in the %s", name)
		}
	}
	if len(db) == 0 || bytes.Contains(db, []byte(token)) {
		t.Errorf("session database: %d bytes", len(db))
	}

	logout := e2e.Run(t, e2e.Invocation{Dir: dir, Env: noBrowser, Args: []string{"mcp", "logout", "remote", "--config", cfg}})
	if logout.Code != 0 || !strings.Contains(logout.Stdout, "Removed the stored authorization of MCP server remote") {
		t.Errorf("logout: %d %q %q", logout.Code, logout.Stdout, logout.Stderr)
	}
	after := e2e.Run(t, e2e.Invocation{Dir: dir, Env: noBrowser, Args: []string{"mcp", "list", "--config", cfg}})
	if !strings.Contains(after.Stdout, "remote: failed") || !strings.Contains(after.Stdout, "run agent mcp login remote") {
		t.Errorf("list after logout: %q %q", after.Stdout, after.Stderr)
	}
}

// between is the text of s after the first from, up to the next to.
func between(s, from, to string) string {
	_, rest, ok := strings.Cut(s, from)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, to)
	return v
}
