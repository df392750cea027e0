//go:build linux

package tui

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// TestWebFetchAsksAboutANewDomain: in ask mode the model's first fetch of
// a domain is asked about in the call's block, with answers for once, the
// session, always for that domain, and deny; the person answers "always",
// the page reaches the model framed as data, and the next fetch of the
// same domain runs without a question. The local server is the one host
// the config lets resolve to a private address.
func TestWebFetchAsksAboutANewDomain(t *testing.T) {
	t.Parallel()
	var served atomic.Int32
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><head><title>Local docs</title></head><body><h1>Install</h1><p>Run <code>make install</code> on %s.</p></body></html>", r.URL.Path)
	}))
	defer page.Close()
	host, _ := url.Parse(page.URL)
	config := filepath.Join(t.TempDir(), "config.toml")
	os.WriteFile(config, []byte(fmt.Sprintf("[web_fetch]\nprivate_hosts = [%q]\n", host.Host)), 0o644)
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "f1", Name: "web_fetch", Arguments: fmt.Sprintf(`{"url":%q}`, page.URL+"/install")}),
		scripted.ToolCalls(scripted.Call{ID: "f2", Name: "web_fetch", Arguments: fmt.Sprintf(`{"url":%q}`, page.URL+"/upgrade")}),
		scripted.Text("Both pages read."),
	)
	db := filepath.Join(t.TempDir(), "a.db")
	s := e2e.StartTmux(t, t.TempDir(), nil, []string{"--base-url", srv.URL(), "--model", "scripted-model", "--config", config, "--db", db, "--tools", "all"})
	s.WaitFor("Ask about this repository")
	s.Send("read the install docs")
	screen := s.WaitFor("Always allow 127.0.0.1")
	if !strings.Contains(screen, "Allow 127.0.0.1 for this session") || served.Load() != 0 {
		t.Fatalf("the question lacks the session answer, or the page was fetched before it was answered:\n%s", screen)
	}
	s.WaitFor("↑/↓ choose") // the menu takes keys once the keyboard rested
	s.Keys("Down", "Down", "Enter")
	screen = s.WaitFor("Both pages read.")
	if strings.Count(screen, "Always allow") != 0 {
		t.Errorf("a question is still shown:\n%s", screen)
	}
	if n := served.Load(); n != 2 {
		t.Errorf("the server served %d pages, want 2 (the second fetch of the domain was not run without a question)", n)
	}
	reqs := srv.Requests()
	res := e2e.ToolResults(reqs[len(reqs)-1])
	for _, id := range []string{"f1", "f2"} {
		if got := res[id]; !strings.Contains(got, "# Install") || !strings.Contains(got, "not instructions") {
			t.Errorf("%s: the model read %q", id, got)
		}
	}
	trust, err := os.ReadFile(filepath.Join(filepath.Dir(db), "mcp-trust.json"))
	if err != nil || !strings.Contains(string(trust), "127.0.0.1") {
		t.Errorf("the always answer was not remembered: %q %v", trust, err)
	}
	s.Quit()
}
