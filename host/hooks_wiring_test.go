package host_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers/fake"
)

// blockingHook is a hook command that writes its input (the event's JSON)
// to file and blocks the call with why: exit 2, why on stderr.
func blockingHook(file, why string) string {
	return fmt.Sprintf("cat > '%s'; echo '%s' >&2; exit 2", file, why)
}

// hookInput reads the JSON a hook wrote with blockingHook.
func hookInput(t *testing.T, file string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("the hook did not run: %v", err)
	}
	var in map[string]any
	if err := json.Unmarshal(data, &in); err != nil {
		t.Fatalf("the hook's input %q: %v", data, err)
	}
	return in
}

// Issue 35's acceptance check: a PreToolUse hook with Claude Code's
// matcher WebFetch, in the config file's [[hooks.PreToolUse]], fires for
// a web_fetch call and blocks it with exit 2: the hook ran (its input
// names the call), the model reads that the hook blocked the call, and no
// request left for the page. Without the hook, or with one whose matcher
// names another tool, the same call reaches the page, so nothing else
// stopped it.
func TestIssue35PreToolUseHookMatchingWebFetchBlocksWebFetch(t *testing.T) {
	for _, tc := range []struct {
		name    string
		matcher string // "" for no hook
		blocked bool
	}{
		{"a WebFetch hook blocks the fetch", "WebFetch", true},
		{"a hook of another tool lets it through", "Bash", false},
		{"without a hook it fetches", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var hits atomic.Int32
			page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				hits.Add(1)
				w.Header().Set("Content-Type", "text/plain")
				fmt.Fprintln(w, "the page's text")
			}))
			defer page.Close()
			addr := strings.TrimPrefix(page.URL, "http://")
			url := page.URL + "/docs"

			hookFile := filepath.Join(t.TempDir(), "hook-input.json")
			config := fmt.Sprintf("[permissions]\nallow = [\"web_fetch(domain:127.0.0.1)\"]\n\n[web_fetch]\nprivate_hosts = [%q]\n", addr)
			if tc.matcher != "" {
				config += fmt.Sprintf("\n[[hooks.PreToolUse]]\nmatcher = %q\ncommand = %s\n", tc.matcher,
					strconv.Quote(blockingHook(hookFile, "fetching is off in this repository")))
			}
			model := fake.New(fake.ToolCalls(call("f1", "web_fetch", fmt.Sprintf(`{"url":%q}`, url))), fake.Text("done"))
			f := newFixture(t, model, config)
			s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeAuto})
			if r := runTurn(t, s, "read the docs"); r.done.Reason != loop.StopAnswered {
				t.Fatalf("the turn ended %s: %v", r.done.Reason, r.done.Err)
			}

			read := toolResults(model.Requests()[1])["f1"]
			if !tc.blocked {
				if read.IsError || !strings.Contains(read.Content, "the page's text") || hits.Load() != 1 || exists(hookFile) {
					t.Fatalf("the fetch: %q (error %v), %d requests to the page, hook ran %v; want the page, fetched once, no hook",
						read.Content, read.IsError, hits.Load(), exists(hookFile))
				}
				return
			}
			in := hookInput(t, hookFile)
			if in["hook_event_name"] != "PreToolUse" || in["tool_name"] != "WebFetch" || !strings.Contains(fmt.Sprint(in["tool_input"]), url) {
				t.Errorf("the hook's input %v, want PreToolUse of WebFetch with the URL", in)
			}
			if !read.IsError || !strings.Contains(read.Content, "PreToolUse hook blocked") || !strings.Contains(read.Content, "fetching is off in this repository") {
				t.Errorf("the model read %q (error %v), want that the hook blocked the call, and why", read.Content, read.IsError)
			}
			if n := hits.Load(); n != 0 {
				t.Errorf("%d requests reached the page, want none", n)
			}
		})
	}
}

// A repository's own hooks (.claude/settings.json) run commands of
// whoever wrote the repository: headless they run only with
// --trust-project (Trust.Hooks), and the person hears why they did not.
func TestRepositoryHooksRunHeadlessOnlyWhenTrusted(t *testing.T) {
	for _, tc := range []struct {
		name    string
		trusted bool
	}{
		{"untrusted: not run, and the person hears why", false},
		{"trusted with --trust-project: run", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			model := fake.New(fake.ToolCalls(call("r1", "read_file", `{"path":"notes.txt"}`)), fake.Text("done"))
			f := newFixture(t, model, "")
			write(t, f.path("notes.txt"), "notes\n")
			hookFile := filepath.Join(t.TempDir(), "hook-input.json")
			settings, _ := json.Marshal(map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{
				"matcher": "Read", "hooks": []any{map[string]any{"type": "command", "command": blockingHook(hookFile, "the repository says no")}},
			}}}})
			write(t, f.path(".claude/settings.json"), string(settings))
			var mu sync.Mutex
			var warned []string
			warn := func(s string) { mu.Lock(); warned = append(warned, s); mu.Unlock() }

			s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeAuto, Warn: warn, Trust: host.Trust{Hooks: tc.trusted}})
			runTurn(t, s, "read the notes")
			read := toolResults(model.Requests()[1])["r1"]
			mu.Lock()
			heard := strings.Join(warned, "\n")
			mu.Unlock()

			if tc.trusted {
				if in := hookInput(t, hookFile); in["tool_name"] != "Read" {
					t.Errorf("the hook's input %v, want Read", in)
				}
				if !read.IsError || !strings.Contains(read.Content, "the repository says no") {
					t.Errorf("the model read %q, want the hook's block", read.Content)
				}
				return
			}
			if exists(hookFile) {
				t.Error("the repository's hook ran untrusted")
			}
			if read.IsError || !strings.Contains(read.Content, "notes") {
				t.Errorf("the model read %q, want the file", read.Content)
			}
			if !strings.Contains(heard, ".claude/settings.json") || !strings.Contains(heard, "--trust-project") {
				t.Errorf("the person heard %q, want which hooks did not run and how to run them", heard)
			}
		})
	}
}
