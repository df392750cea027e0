package host_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/tools/mcp"
)

// Claude Code's approvals of .mcp.json servers: the person's
// ~/.claude/settings.json approves (enabledMcpjsonServers,
// enableAllProjectMcpServers) and refuses (disabledMcpjsonServers); the
// repository's .claude/settings.json and settings.local.json only refuse,
// and their approvals of the repository's own servers are not taken (a
// warning names them).
func TestClaudeSettingsApproveProjectServers(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	server := fmt.Sprintf(`{"command": %q, "env": {%q: "1"}}`, exe, asMCPServer)
	for _, tc := range []struct {
		name          string
		user, repo    string // the settings files' JSON ("" none)
		local         string
		trustAll      bool
		want          map[string]mcp.State
		warning, skip string // a warning said; why the server named in skipName is skipped
		skipName      string
	}{
		{name: "the person's enabled list approves", user: `{"enabledMcpjsonServers": ["a"]}`,
			want: map[string]mcp.State{"a": mcp.StateRunning, "b": mcp.StateSkipped}},
		{name: "the person's enable-all approves", user: `{"enableAllProjectMcpServers": true, "disabledMcpjsonServers": ["b"]}`,
			want: map[string]mcp.State{"a": mcp.StateRunning, "b": mcp.StateSkipped}, skip: "disabledMcpjsonServers", skipName: "b"},
		{name: "the repository approves nothing", repo: `{"enabledMcpjsonServers": ["a", "b"]}`, local: `{"enableAllProjectMcpServers": true}`,
			want:    map[string]mcp.State{"a": mcp.StateSkipped, "b": mcp.StateSkipped},
			warning: "does not take a repository's word"},
		{name: "the repository refuses, trusted or not", local: `{"disabledMcpjsonServers": ["a"]}`, trustAll: true,
			want: map[string]mcp.State{"a": mcp.StateSkipped, "b": mcp.StateRunning}, skip: "settings.local.json names it", skipName: "a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			t.Setenv("HOME", home)
			f := newFixture(t, fake.New(fake.Text("ok")), "")
			write(t, filepath.Join(f.dir, ".mcp.json"), fmt.Sprintf(`{"mcpServers": {"a": %s, "b": %s}}`, server, server))
			for path, text := range map[string]string{filepath.Join(home, ".claude", "settings.json"): tc.user,
				filepath.Join(f.dir, ".claude", "settings.json"): tc.repo, filepath.Join(f.dir, ".claude", "settings.local.json"): tc.local} {
				if text != "" {
					if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
						t.Fatal(err)
					}
					write(t, path, text)
				}
			}
			var mu sync.Mutex
			var warned []string
			s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeAuto, Trust: host.Trust{MCP: tc.trustAll},
				Warn: func(w string) { mu.Lock(); warned = append(warned, w); mu.Unlock() }})
			s.WaitMCP(t.Context())
			for _, st := range s.MCPStatus() {
				if st.State != tc.want[st.Name] {
					t.Errorf("%s: %s (%s), want %s", st.Name, st.State, st.Error, tc.want[st.Name])
				}
				if st.Name == tc.skipName && !strings.Contains(st.Error, tc.skip) {
					t.Errorf("%s skipped for %q, want %q", st.Name, st.Error, tc.skip)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if tc.warning != "" && !slices.ContainsFunc(warned, func(w string) bool { return strings.Contains(w, tc.warning) }) {
				t.Errorf("warnings %q, want one saying %q", warned, tc.warning)
			}
		})
	}
}
