package headless

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// bg is a bash call that runs command in the background.
func bg(id, command string) scripted.Call {
	raw, _ := json.Marshal(map[string]any{"command": command, "run_in_background": true})
	return scripted.Call{ID: id, Name: "bash", Arguments: string(raw)}
}

func bash(id, command string) scripted.Call {
	raw, _ := json.Marshal(map[string]any{"command": command})
	return scripted.Call{ID: id, Name: "bash", Arguments: string(raw)}
}

// freePort is a TCP port nothing listens on now.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}

// The model starts a web server in the background, reaches it from a
// later command, reads the server's log and stops it: in the sandbox
// (network off: the session's commands share a network namespace) and
// with no sandbox at all (--yolo). The server is gone afterwards.
func TestTheModelServesReachesAndStopsABackgroundServer(t *testing.T) {
	t.Parallel()
	for _, mode := range [][]string{{"--permission-mode", "auto"}, {"--yolo"}} {
		t.Run(mode[0], func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			e2e.WriteFile(t, dir, "hello.txt", "hello from the server\n")
			port := freePort(t)
			url := "http://127.0.0.1:" + port + "/hello.txt"
			srv := scripted.New(t,
				scripted.ToolCalls(bg("serve", "echo $$ > server.pid; exec python3 -u -m http.server "+port+" --bind 127.0.0.1")),
				// A readiness loop of the model's command: it ends as
				// soon as the server answers.
				scripted.ToolCalls(bash("fetch", "for i in $(seq 400); do curl -sf "+url+" && exit 0; sleep 0.05; done; exit 1")),
				scripted.ToolCalls(scripted.Call{ID: "log", Name: "bash_output", Arguments: `{"bash_id":"bash_1","filter":"GET /hello.txt"}`}),
				scripted.ToolCalls(scripted.Call{ID: "stop", Name: "kill_shell", Arguments: `{"shell_id":"bash_1"}`}),
				scripted.Text("served and stopped"),
			)
			res := e2e.RunOK(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, append(mode, "--tools", "all", "-p", "serve it")...)})
			if res.Stdout != "served and stopped\n" {
				t.Errorf("stdout %q, stderr %s", res.Stdout, res.Stderr)
			}
			results := e2e.ToolResults(srv.Requests()[4])
			if got := results["serve"]; !strings.Contains(got, "runs in the background as bash_1") {
				t.Errorf("starting the server: %s", got)
			}
			if got := results["fetch"]; !strings.Contains(got, "hello from the server") {
				t.Errorf("the later command did not reach the server: %s", got)
			}
			if got := results["log"]; !strings.Contains(got, "bash_1 is running") || !strings.Contains(got, `"GET /hello.txt HTTP/1.1" 200`) {
				t.Errorf("bash_output does not show the server's log line: %s", got)
			}
			if got := results["stop"]; !strings.Contains(got, "bash_1 was stopped") {
				t.Errorf("kill_shell: %s", got)
			}
			pid := readPid(t, filepath.Join(dir, "server.pid"))
			if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err == nil {
				t.Errorf("the server (pid %d) runs after the run ended", pid)
			}
		})
	}
}

// Killing the agent with SIGKILL while two background processes run ends
// both within a second: their supervisors get their parent-death signal.
func TestBackgroundProcessesDieWithAKilledAgent(t *testing.T) {
	t.Parallel()
	for _, mode := range [][]string{{"--permission-mode", "auto"}, {"--yolo"}} {
		t.Run(mode[0], func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for _, name := range []string{"a.fifo", "b.fifo"} {
				if err := unix.Mkfifo(filepath.Join(dir, name), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			hold := make(chan struct{})
			t.Cleanup(func() { close(hold) })
			srv := scripted.New(t,
				scripted.ToolCalls(bg("a", "echo $$ > a.fifo; exec sleep 600"), bg("b", "echo $$ > b.fifo; exec sleep 600")),
				scripted.Text("never sent").HoldAfterEvents(0, hold),
			)
			cmd, _, stderr := e2e.StartAgent(t, dir, e2e.AgentArgs(srv, append(mode, "-p", "--output-format", "stream-json", "start two")...))
			a := e2e.ChildFromFIFO(t, filepath.Join(dir, "a.fifo"))
			b := e2e.ChildFromFIFO(t, filepath.Join(dir, "b.fifo"))
			if err := srv.WaitRequests(t.Context(), 2); err != nil { // both started; the model thinks
				t.Fatal(err)
			}
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			killed := time.Now()
			cmd.Wait()
			for _, c := range []e2e.Child{a, b} {
				if !c.EndedWithin(time.Second - time.Since(killed)) {
					t.Errorf("background process %d outlived the killed agent by a second; stderr %s", c.Pid, stderr)
				}
			}
			t.Logf("both ended %v after the SIGKILL", time.Since(killed))
		})
	}
}

// readPid reads the pid a command wrote to path.
func readPid(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("%s holds %q", path, b)
	}
	return pid
}

// A headless run's background processes end with the run, even one the
// model left running.
func TestAHeadlessRunsBackgroundProcessesEndWithIt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := unix.Mkfifo(filepath.Join(dir, "watcher.fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	hold := make(chan struct{})
	srv := scripted.New(t,
		scripted.ToolCalls(bg("watch", "echo $$ > watcher.fifo; exec sleep 600")),
		scripted.Text("left it running").HoldAfterEvents(0, hold),
	)
	cmd, _, stderr := e2e.StartAgent(t, dir, e2e.AgentArgs(srv, "-p", "--output-format", "stream-json", "watch"))
	watcher := e2e.ChildFromFIFO(t, filepath.Join(dir, "watcher.fifo"))
	close(hold) // the model answers: the run ends
	if code := e2e.ExitCodeOf(t, cmd); code != 0 {
		t.Fatalf("exit %d; stderr %s", code, stderr)
	}
	if !watcher.EndedWithin(0) {
		t.Errorf("the watcher (pid %d) outlived the run", watcher.Pid)
	}
}
