//go:build linux

package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/shell"
)

// The helper is started with vfork and every capability ambient, and maps
// its ids itself (sysProcAttr): the command must still see your own ids
// and hold no capability at all, ambient ones included, so that nothing it
// execs (a setuid-less program that would keep ambient capabilities) gets
// any.
func TestCommandHasYourIDsAndNoCapabilities(t *testing.T) {
	b := newBox(t, nil)
	b.needNamespaces()
	res := b.run(`id -u; id -g; cat /proc/self/uid_map /proc/self/gid_map /proc/self/setgroups; grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb):' /proc/self/status`)
	if exitCode(res) != 0 {
		t.Fatalf("the command failed:\n%s", res.Content)
	}
	fields := strings.Fields(res.Content)
	uid, gid := strconv.Itoa(os.Getuid()), strconv.Itoa(os.Getgid())
	if len(fields) < 10 || fields[0] != uid || fields[1] != gid {
		t.Fatalf("want uid %s and gid %s:\n%s", uid, gid, res.Content)
	}
	if got := strings.Join(fields[2:9], " "); got != uid+" "+uid+" 1 "+gid+" "+gid+" 1 deny" {
		t.Errorf("want the ids mapped to themselves and setgroups denied, got %q", got)
	}
	caps := 0
	for _, line := range strings.Split(res.Content, "\n") {
		name, value, ok := strings.Cut(line, ":")
		if !ok || !strings.HasPrefix(name, "Cap") {
			continue
		}
		caps++
		if strings.TrimSpace(value) != "0000000000000000" {
			t.Errorf("the command holds capabilities: %s", line)
		}
	}
	if caps != 5 {
		t.Errorf("want the five capability sets in the output:\n%s", res.Content)
	}
}

// Commands run at once each get their own helper, output and exit status.
func TestConcurrentCommandsKeepTheirOwnResults(t *testing.T) {
	b := newBox(t, func(p *Policy) { p.MaxProcesses, p.TempSize = 256, 16<<20 })
	b.needNamespaces()
	const n = 8
	var wg sync.WaitGroup
	results := make([]tools.Result, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tmp := sq(b.sb.TempDir())
			results[i] = b.run(fmt.Sprintf(`echo "out %d" > %s/f%d && cat %s/f%d; exit %d`, i, tmp, i, tmp, i, i+1))
		}()
	}
	wg.Wait()
	for i, res := range results {
		if want := fmt.Sprintf("out %d", i); !strings.Contains(res.Content, want) || exitCode(res) != i+1 {
			t.Errorf("command %d: want %q and exit status %d, got %d:\n%s", i, want, i+1, exitCode(res), res.Content)
		}
	}
}

// A cancellation that comes while the helper is still setting up (the
// context is cancelled as soon as the helper process has started, before
// it has mounted anything or started bash) ends the call, and leaves no
// process of the command behind.
func TestCancelDuringTheHelpersSetUpLeavesNothing(t *testing.T) {
	b := newBox(t, nil)
	b.needNamespaces()
	var cancel context.CancelFunc
	tool := shell.New(shell.Config{Dir: b.work, Build: b.sb.Build, Guard: b.sb.Guard, KillGrace: time.Second,
		Start: func(cmd *exec.Cmd) error {
			err := b.sb.Start(cmd)
			cancel()
			return err
		}})
	raw, _ := json.Marshal(map[string]any{"command": "exec sleep 1000"})
	for i := range 20 {
		ctx, stop := context.WithCancel(context.Background())
		cancel = stop
		res, err := tool.Run(ctx, tools.Call{Args: raw})
		stop()
		if err != nil || res.Meta["cancelled"] != true {
			t.Fatalf("run %d: want a cancelled call, got %v:\n%s", i, err, res.Content)
		}
	}
	// Every call has returned, its helper reaped; no command may be left.
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || string(cmdline) != "sleep\x001000\x00" {
			continue
		}
		if cwd, _ := os.Readlink(filepath.Join("/proc", e.Name(), "cwd")); cwd == b.work {
			t.Errorf("process %s outlived its cancelled command", e.Name())
		}
	}
}

// A user other than root gets the namespaces too: the helper keeps its
// capabilities through ambient ones, where mapped to itself (not uid 0 in
// its namespace) it used to lose them at execve and the mounts failed
// ("making mounts private: operation not permitted"). The test binary runs
// itself as nobody for the commands.
func TestNamespacesWorkForAUserOtherThanRoot(t *testing.T) {
	if os.Getenv("AGENT_TEST_AS_NOBODY") != "" {
		b := newBox(t, nil)
		if st := b.sb.Status(); !st.UserNamespaces {
			t.Fatalf("no namespaces for uid %d: %s", os.Getuid(), st.UserNamespacesErr)
		}
		res := b.run("id -u; echo evil > .git/hooks/pre-commit")
		if !strings.HasPrefix(res.Content, strconv.Itoa(os.Getuid())+"\n") || exitCode(res) == 0 {
			t.Errorf("want the command to run as uid %d and .git/hooks read-only:\n%s", os.Getuid(), res.Content)
		}
		absent(t, filepath.Join(b.work, ".git", "hooks", "pre-commit"))
		return
	}
	needLandlock(t)
	if os.Getuid() != 0 {
		t.Skip("starting the test as another user needs root")
	}
	dir, err := os.MkdirTemp("", "agent-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	self, err := os.ReadFile("/proc/self/exe")
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "sandbox.test")
	if err := os.WriteFile(exe, self, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestNamespacesWorkForAUserOtherThanRoot$", "-test.count=1", "-test.v")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "AGENT_TEST_AS_NOBODY=1", "HOME="+dir, "TMPDIR="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS") {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
}
