//go:build linux

package sessions

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// assertValidHistory checks what both APIs ask of a request's history:
// every call answered once, no result without its call, and no two user
// messages in a row.
func assertValidHistory(t *testing.T, reqs []scripted.Request) {
	t.Helper()
	e2e.AssertCallsAnswered(t, reqs)
	for i, req := range reqs {
		asked := map[string]bool{}
		answered := map[string]bool{}
		prev := ""
		for _, m := range req.Chat.Messages {
			for _, c := range m.ToolCalls {
				asked[c.ID] = true
			}
			switch {
			case m.Role == "tool" && (!asked[m.ToolCallID] || answered[m.ToolCallID]):
				t.Errorf("request %d: a result for %s with no call before it, or a second one", i+1, m.ToolCallID)
			case m.Role == "tool":
				answered[m.ToolCallID] = true
			case m.Role == prev && m.Role != "system":
				t.Errorf("request %d: two %s messages in a row", i+1, m.Role)
			}
			prev = m.Role
		}
	}
}

func TestConcurrentContinuesGetOneWriterEach(t *testing.T) {
	t.Parallel()
	for _, n := range []int{2, 4, 8} {
		t.Run(fmt.Sprintf("%d processes", n), func(t *testing.T) {
			dir, db := t.TempDir(), filepath.Join(t.TempDir(), "agent.db")
			os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644)
			first := scripted.New(t, scripted.ToolCalls(scripted.Call{ID: "r1", Name: "read_file", Arguments: `{"path":"a.txt"}`}),
				scripted.Text("It says alpha."))
			res := e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(first, "--db", db, "-p", "--output-format", "json", "read a.txt")})
			if res.Code != 0 {
				t.Fatalf("first run: exit %d: %s", res.Code, res.Stderr)
			}
			original := e2e.SessionIDOf(t, res.Stdout)

			// Every process's request is held until all of them sent
			// one, so that they all run at once.
			release := make(chan struct{})
			replies := make([]scripted.Reply, n)
			for i := range replies {
				replies[i] = scripted.Text("answer").HoldAfterEvents(1, release)
			}
			srv := scripted.New(t, replies...)
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), e2e.HangLimit)
				defer cancel()
				srv.WaitRequests(ctx, n)
				close(release)
			}()
			results := make([]e2e.Result, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() {
					results[i] = e2e.Run(t, e2e.Invocation{Dir: dir,
						Args: e2e.AgentArgs(srv, "--db", db, "-c", "-p", "--output-format", "json", fmt.Sprintf("prompt %d", i))})
				})
			}
			wg.Wait()

			ids := map[string]bool{}
			forked := 0
			for i, r := range results {
				if r.Code != 0 {
					t.Fatalf("process %d: exit %d: %s", i, r.Code, r.Stderr)
				}
				ids[e2e.SessionIDOf(t, r.Stdout)] = true
				if strings.Contains(r.Stderr, "is in use by process") && strings.Contains(r.Stderr, "forked from its history") {
					forked++
				}
			}
			if len(ids) != n || !ids[original] || forked != n-1 {
				t.Errorf("%d sessions for %d processes (original continued: %v), %d said they forked", len(ids), n, ids[original], forked)
			}
			reqs := srv.Requests()
			assertValidHistory(t, reqs)
			for i, req := range reqs {
				if got := e2e.Roles(req); len(got) != 6 || got[1] != "user:read a.txt" || !strings.HasPrefix(got[5], "user:prompt ") {
					t.Errorf("request %d: %v; want the first turn and one prompt", i+1, got)
				}
			}

			// Each session goes on with a valid request.
			after := scripted.New(t, scripted.Text("more"))
			res = e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(after, "--db", db, "-c", "-p", "and now?")})
			if res.Code != 0 || strings.Contains(res.Stderr, "in use") {
				t.Fatalf("-c after them: exit %d: %s", res.Code, res.Stderr)
			}
			assertValidHistory(t, after.Requests())
		})
	}
}

func TestAKilledRunIsMarkedInterruptedAndContinuesAtOnce(t *testing.T) {
	t.Parallel()
	dir, db := t.TempDir(), filepath.Join(t.TempDir(), "agent.db")
	release := make(chan struct{})
	defer close(release)
	srv := scripted.New(t, scripted.Text("never finished").HoldAfterEvents(1, release))
	cmd := exec.Command(e2e.Agent(t), e2e.AgentArgs(srv, "--db", db, "-p", "start something")...)
	cmd.Dir, cmd.Env = dir, e2e.BaseEnv(t)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), e2e.HangLimit)
	defer cancel()
	if err := srv.WaitRequests(ctx, 1); err != nil {
		cmd.Process.Kill()
		t.Fatal(err)
	}
	cmd.Process.Kill() // kill -9 in the middle of the turn
	cmd.Wait()

	res := e2e.Run(t, e2e.Invocation{Dir: dir, Args: []string{"sessions", "list", "--db", db, "--json"}})
	var list []struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &list); err != nil || len(list) != 1 || list[0].Status != "interrupted" {
		t.Fatalf("sessions list after kill -9: %v %q %s", err, res.Stdout, res.Stderr)
	}
	after := scripted.New(t, scripted.Text("went on"))
	res = e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(after, "--db", db, "-c", "-p", "--output-format", "json", "go on")})
	if res.Code != 0 || e2e.SessionIDOf(t, res.Stdout) != list[0].ID || strings.Contains(res.Stderr, "in use") {
		t.Errorf("-c after kill -9: exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
	}
	assertValidHistory(t, after.Requests())
}
