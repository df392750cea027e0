package mcp

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// TestMCPToolListChanges: a real server whose tool list changes during a
// session. mcp-hub (npm) serves the tools of the servers its config file
// names and, watching that file, sends notifications/tools/list_changed
// when they change. Between the model's first and second request the test
// replaces the hub's server-everything with server-filesystem; the second
// request offers the new tools in pick_tools' index and no longer the
// removed ones.
func TestMCPToolListChanges(t *testing.T) {
	t.Parallel()
	bin := e2e.MCPBin(t)
	dir := t.TempDir()
	hubCfg := filepath.Join(t.TempDir(), "hub.json")
	writeHub := func(name, command string, args ...string) {
		t.Helper()
		quoted := make([]string, len(args))
		for i, a := range args {
			quoted[i] = fmt.Sprintf("%q", a)
		}
		cfg := fmt.Sprintf(`{"mcpServers": {%q: {"command": %q, "args": [%s]}}}`, name, command, strings.Join(quoted, ", "))
		if err := os.WriteFile(hubCfg, []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeHub("everything", filepath.Join(bin, "mcp-server-everything"))
	hub := startHub(t, filepath.Join(bin, "mcp-hub"), hubCfg)
	proxy := newListWatch(t, hub)

	hold := make(chan struct{})
	released := sync.OnceFunc(func() { close(hold) })
	t.Cleanup(released)
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "l", Name: "list_files", Arguments: `{"pattern":"*"}`}).HoldAfterEvents(0, hold),
		scripted.Text("done"),
	)
	cfg := e2e.MCPConfig(t, fmt.Sprintf("[mcp.servers.hub]\nurl = %q\ntransport = \"sse\"\n", proxy.URL+"/mcp"))
	done := make(chan e2e.Result, 1)
	go func() {
		done <- e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "--config", cfg, "-p", "look around")})
	}()

	ctx, cancel := context.WithTimeout(context.Background(), e2e.HangLimit)
	defer cancel()
	if err := srv.WaitRequests(ctx, 1); err != nil {
		t.Fatal(err)
	}
	first := e2e.ToolNamed(srv.Requests()[0], "pick_tools").Function.Description
	if !strings.Contains(first, "mcp__hub__everything__: echo") || strings.Contains(first, "mcp__hub__fs__") {
		t.Fatalf("first request's index: %q", first)
	}
	// The session is waiting for the model's first answer: change the hub.
	writeHub("fs", filepath.Join(bin, "mcp-server-filesystem"), dir)
	if err := proxy.waitList(ctx, "fs__read_text_file", "everything__echo"); err != nil {
		t.Fatalf("the agent never listed the hub's new tools: %v", err)
	}
	released()
	res := <-done
	if res.Code != 0 || res.Stdout != "done\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
	}
	second := e2e.ToolNamed(srv.Requests()[1], "pick_tools").Function.Description
	if !strings.Contains(second, "mcp__hub__fs__: ") || !strings.Contains(second, "read_text_file") || strings.Contains(second, "mcp__hub__everything__") {
		t.Errorf("second request's index does not follow the change: %q", second)
	}
}

// startHub starts mcp-hub on a free port of 127.0.0.1, watching cfg, and
// returns its address; it is stopped (its process group) when the test
// ends.
func startHub(t *testing.T, hubBin, cfg string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(hubBin, "--port", fmt.Sprint(port), "--watch", "--config", cfg)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "XDG_STATE_HOME="+t.TempDir())
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		procs := e2e.ProcessTree(cmd.Process.Pid)
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
		e2e.WaitExited(t, procs, 0)
	})
	addr := fmt.Sprintf("http://127.0.0.1:%d", port)
	deadline := time.Now().Add(e2e.HangLimit)
	for {
		resp, err := http.Get(addr + "/api/health")
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if strings.Contains(string(body), `"state":"ready"`) {
				return addr
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("mcp-hub never became ready: %v\n%s", err, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// listWatch is a reverse proxy in front of the hub that watches the
// hub's event stream for tools/list results, to know when the agent has
// received a changed list.
type listWatch struct {
	*httptest.Server
	mu    sync.Mutex
	lists []string // the data lines of tools/list results, in order
	seen  chan struct{}
}

func newListWatch(t *testing.T, target string) *listWatch {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	w := &listWatch{seen: make(chan struct{}, 1)}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.FlushInterval = -1
	rp.ModifyResponse = func(resp *http.Response) error {
		if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			pr, pw := io.Pipe()
			body := resp.Body
			go func() {
				sc := bufio.NewScanner(io.TeeReader(body, pw))
				sc.Buffer(nil, 1<<20)
				for sc.Scan() {
					if line := sc.Text(); strings.HasPrefix(line, "data:") && strings.Contains(line, `"tools":[`) {
						w.mu.Lock()
						w.lists = append(w.lists, line)
						w.mu.Unlock()
						select {
						case w.seen <- struct{}{}:
						default:
						}
					}
				}
				pw.CloseWithError(io.EOF)
				body.Close()
			}()
			resp.Body = pr
		}
		return nil
	}
	w.Server = httptest.NewServer(rp)
	t.Cleanup(w.Close)
	return w
}

// waitList waits until a tools/list result holding has and not hasNot
// went through to the agent.
func (w *listWatch) waitList(ctx context.Context, has, hasNot string) error {
	for {
		w.mu.Lock()
		for _, l := range w.lists {
			if strings.Contains(l, has) && !strings.Contains(l, hasNot) {
				w.mu.Unlock()
				return nil
			}
		}
		w.mu.Unlock()
		select {
		case <-w.seen:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
