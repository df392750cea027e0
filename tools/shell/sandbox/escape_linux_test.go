//go:build linux

package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"

	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/shell"
)

// box is a sandboxed bash tool over a fresh layout:
//
//	base/work       the working directory (with .git/hooks and .git/config)
//	base/tmp        the only temporary directory
//	base/outside    a directory commands must not change (holds file "f")
//	base/work/.agent-config, base/outside/data: the agent's own directories
type box struct {
	t                      *testing.T
	tool                   *shell.Tool
	sb                     *Sandbox
	work, tmp, outside     string
	innerConfig, outerData string
}

// needLandlock skips when the kernel has no Landlock: the only reason this
// suite may skip.
func needLandlock(t *testing.T) int {
	t.Helper()
	abi, err := ll.LandlockGetABIVersion()
	if err != nil || abi < 1 {
		t.Skipf("this kernel has no Landlock (%v): the Linux sandbox cannot be tested here", err)
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	return abi
}

func newBox(t *testing.T, edit func(*Policy)) *box {
	t.Helper()
	needLandlock(t)
	base := t.TempDir()
	b := &box{t: t, work: filepath.Join(base, "work"), tmp: filepath.Join(base, "tmp"), outside: filepath.Join(base, "outside")}
	b.innerConfig = filepath.Join(b.work, ".agent-config")
	b.outerData = filepath.Join(b.outside, "data")
	for _, d := range []string{filepath.Join(b.work, ".git", "hooks"), b.tmp, b.outerData, b.innerConfig} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(b.outside, "f"), "original\n")
	write(t, filepath.Join(b.work, ".git", "config"), "[core]\n")
	write(t, filepath.Join(b.innerConfig, "config.toml"), "model = \"m\"\n")
	p := Policy{Mode: WorkspaceWrite, Dir: b.work, TempDirs: []string{b.tmp}, Protected: []string{b.innerConfig, b.outerData}}
	if edit != nil {
		edit(&p)
		b.work = p.Dir // a test may make the working directory elsewhere (a submodule checkout)
	}
	sb, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	// Brief, not Status: the first command of a test that does not ask
	// for namespaces (needNamespaces) probes them as it starts.
	if st := sb.Brief(); !st.Enforced {
		t.Fatalf("the sandbox is not enforced on a kernel with Landlock: %s", st.Reason)
	}
	b.sb = sb
	b.tool = shell.New(shell.Config{Dir: b.work, Build: sb.Build, Start: sb.Start, Guard: sb.Guard, KillGrace: time.Second})
	return b
}

// needNamespaces skips a test of what only namespaces provide.
func (b *box) needNamespaces() {
	b.t.Helper()
	if st := b.sb.Status(); !st.UserNamespaces {
		b.t.Skipf("user namespaces are unavailable here (%s)", st.UserNamespacesErr)
	}
}

// run runs command in the box and returns the result's text.
func (b *box) run(command string) tools.Result {
	b.t.Helper()
	return b.runWith(context.Background(), command, 0)
}

func (b *box) runWith(ctx context.Context, command string, timeoutMS int) tools.Result {
	b.t.Helper()
	a := map[string]any{"command": command}
	if timeoutMS > 0 {
		a["timeout_ms"] = timeoutMS
	}
	raw, _ := json.Marshal(a)
	res, err := b.tool.Run(ctx, tools.Call{Args: raw})
	if err != nil {
		b.t.Fatalf("%s: %v", command, err)
	}
	return res
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// absent fails the test when path exists.
func absent(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s exists (err %v): the sandbox let a command create it", path, err)
	}
}

// unchanged fails the test when path's content is not want.
func unchanged(t *testing.T, path, want string) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil || string(got) != want {
		t.Errorf("%s = %q, %v; want %q unchanged", path, got, err, want)
	}
}

func exitCode(res tools.Result) int {
	c, _ := res.Meta["exit_code"].(int)
	return c
}

func TestWorkspaceWriteAllowsTheWorkspaceAndTemp(t *testing.T) {
	b := newBox(t, nil)
	res := b.run("echo hi > made.txt && mkdir -p d/e && echo t > " + b.tmp + "/t && cat made.txt && echo gone > /dev/null && ls /")
	if exitCode(res) != 0 {
		t.Fatalf("ordinary work failed in the sandbox:\n%s", res.Content)
	}
	unchanged(t, filepath.Join(b.work, "made.txt"), "hi\n")
	unchanged(t, filepath.Join(b.tmp, "t"), "t\n")
}

// Each escape is a command that tries to change something outside the
// writable roots; each must fail and leave no trace.
func TestEscapesFail(t *testing.T) {
	b := newBox(t, nil)
	f := filepath.Join(b.outside, "f")
	cases := []struct {
		name, command string
		check         func(*testing.T)
	}{
		{"absolute path", "echo evil > " + b.outside + "/new", func(t *testing.T) { absent(t, filepath.Join(b.outside, "new")) }},
		{"overwrite by absolute path", "echo evil > " + f, func(t *testing.T) { unchanged(t, f, "original\n") }},
		{"dot-dot", "echo evil > ../outside/new2", func(t *testing.T) { absent(t, filepath.Join(b.outside, "new2")) }},
		{"rm outside", "rm -f " + f, func(t *testing.T) { unchanged(t, f, "original\n") }},
		{"symlink to a directory", "ln -s " + b.outside + " out && echo evil > out/new3", func(t *testing.T) { absent(t, filepath.Join(b.outside, "new3")) }},
		{"symlink to a file", "ln -s " + f + " lf && echo evil > lf", func(t *testing.T) { unchanged(t, f, "original\n") }},
		{"hard link", "ln " + f + " hl; echo evil >> hl", func(t *testing.T) { unchanged(t, f, "original\n") }},
		{"hard link from temp", "ln " + f + " " + b.tmp + "/hl; echo evil >> " + b.tmp + "/hl", func(t *testing.T) { unchanged(t, f, "original\n") }},
		{"/proc/self/root", "echo evil > /proc/self/root" + b.outside + "/new4", func(t *testing.T) { absent(t, filepath.Join(b.outside, "new4")) }},
		{"/proc/self/cwd/..", "echo evil > /proc/self/cwd/../outside/new5", func(t *testing.T) { absent(t, filepath.Join(b.outside, "new5")) }},
		{"rename out", "echo x > mine && mv mine " + b.outside + "/new6", func(t *testing.T) { absent(t, filepath.Join(b.outside, "new6")) }},
		{"data dir outside", "echo evil > " + b.outerData + "/agent.db", func(t *testing.T) { absent(t, filepath.Join(b.outerData, "agent.db")) }},
		{"chmod outside", "chmod 777 " + f, func(t *testing.T) {
			if fi, _ := os.Stat(f); fi.Mode().Perm() != 0o644 {
				t.Errorf("mode of %s changed to %v", f, fi.Mode().Perm())
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := b.run(c.command)
			if exitCode(res) == 0 && !strings.Contains(c.command, ";") {
				t.Errorf("%q succeeded in the sandbox:\n%s", c.command, res.Content)
			}
			c.check(t)
		})
	}
}

// The repository's hooks and config, and the agent's own directories, stay
// read-only inside the writable working directory.
func TestProtectedPathsInsideTheWorkspace(t *testing.T) {
	b := newBox(t, nil)
	b.needNamespaces()
	hooks := filepath.Join(b.work, ".git", "hooks")
	cases := []struct {
		name, command string
		check         func(*testing.T)
	}{
		{"new hook", "echo evil > .git/hooks/pre-commit", func(t *testing.T) { absent(t, filepath.Join(hooks, "pre-commit")) }},
		{"hooks dir moved away", "mv .git/hooks .git/old && mkdir .git/hooks && echo evil > .git/hooks/post-checkout", func(t *testing.T) {
			absent(t, filepath.Join(b.work, ".git", "old"))
			absent(t, filepath.Join(hooks, "post-checkout"))
		}},
		{"hooks dir removed", "rm -rf .git/hooks", func(t *testing.T) {
			if _, err := os.Stat(hooks); err != nil {
				t.Errorf(".git/hooks was removed: %v", err)
			}
		}},
		{"git config", "echo '[core] fsmonitor = evil' >> .git/config", func(t *testing.T) { unchanged(t, filepath.Join(b.work, ".git", "config"), "[core]\n") }},
		{"git config replaced", "echo '[core]' > cfg && mv cfg .git/config", func(t *testing.T) { unchanged(t, filepath.Join(b.work, ".git", "config"), "[core]\n") }},
		{"agent config", "echo 'model = \"evil\"' > .agent-config/config.toml", func(t *testing.T) {
			unchanged(t, filepath.Join(b.innerConfig, "config.toml"), "model = \"m\"\n")
		}},
		{"agent config dir replaced", "mv .agent-config gone", func(t *testing.T) { absent(t, filepath.Join(b.work, "gone")) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if res := b.run(c.command); exitCode(res) == 0 {
				t.Errorf("%q succeeded in the sandbox:\n%s", c.command, res.Content)
			}
			c.check(t)
		})
	}
	// Ordinary git work still happens inside .git.
	if _, err := exec.LookPath("git"); err == nil {
		os.RemoveAll(filepath.Join(b.work, ".git"))
		if err := exec.Command("git", "init", "-q", b.work).Run(); err != nil {
			t.Fatal(err)
		}
		res := b.run("echo a > a && git add a && git -c user.name=t -c user.email=t@t commit -qm a && git log --oneline | wc -l")
		if exitCode(res) != 0 {
			t.Errorf("git commit failed in the sandbox:\n%s", res.Content)
		}
		if res := b.run("echo evil > .git/hooks/pre-commit"); exitCode(res) == 0 {
			t.Errorf("a hook could be written after git init:\n%s", res.Content)
		}
	}
}

// A repository without hooks gets an empty, read-only hooks directory, so a
// command cannot create one.
func TestMissingHooksDirectoryIsProtected(t *testing.T) {
	b := newBox(t, nil)
	b.needNamespaces()
	os.RemoveAll(filepath.Join(b.work, ".git", "hooks"))
	if res := b.run("mkdir -p .git/hooks; echo evil > .git/hooks/pre-commit"); exitCode(res) == 0 {
		t.Errorf("the hook was written:\n%s", res.Content)
	}
	absent(t, filepath.Join(b.work, ".git", "hooks", "pre-commit"))
}

func TestReadOnlyModeRefusesEveryWrite(t *testing.T) {
	b := newBox(t, func(p *Policy) { p.Mode = ReadOnly })
	write(t, filepath.Join(b.work, "keep"), "keep\n")
	for _, c := range []string{
		"echo x > new", "mkdir d", "rm keep", "echo x >> keep", "touch " + b.tmp + "/t", "ln -s keep l", "mv keep moved",
	} {
		if res := b.run(c); exitCode(res) == 0 {
			t.Errorf("%q succeeded in read-only mode:\n%s", c, res.Content)
		}
	}
	for _, p := range []string{"new", "d", "l", "moved", filepath.Join(b.tmp, "t")} {
		absent(t, filepath.Join(b.work, p))
	}
	unchanged(t, filepath.Join(b.work, "keep"), "keep\n")
	if res := b.run("cat keep && ls && echo fine > /dev/null"); exitCode(res) != 0 {
		t.Errorf("reading failed in read-only mode:\n%s", res.Content)
	}
}

// listen starts a TCP listener on 127.0.0.1 that counts connections.
func listen(t *testing.T) (port string, accepted <-chan struct{}) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	ch := make(chan struct{}, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
			ch <- struct{}{}
		}
	}()
	_, port, _ = net.SplitHostPort(ln.Addr().String())
	return port, ch
}

func TestNetworkOffRefusesTCPToTheHost(t *testing.T) {
	b := newBox(t, nil)
	port, accepted := listen(t)
	res := b.run("exec 3<>/dev/tcp/127.0.0.1/" + port + " && echo connected")
	if exitCode(res) == 0 || strings.Contains(res.Content, "connected") {
		t.Errorf("a command reached 127.0.0.1:%s with the network off:\n%s", port, res.Content)
	}
	select {
	case <-accepted:
		t.Error("the listener accepted a connection from the sandbox")
	default:
	}
	t.Logf("network off by %s: %s", b.sb.Status().NetworkBy, strings.TrimSpace(res.Content))
}

func TestNetworkOnReachesTheHost(t *testing.T) {
	b := newBox(t, func(p *Policy) { p.Network = true })
	port, accepted := listen(t)
	res := b.run("exec 3<>/dev/tcp/127.0.0.1/" + port + " && echo connected")
	if exitCode(res) != 0 || !strings.Contains(res.Content, "connected") {
		t.Fatalf("with the network on, the connection failed:\n%s", res.Content)
	}
	<-accepted
}

// With the network off, loopback inside the sandbox is up: a command can
// talk to a server it started itself (refused, not unreachable, when
// nothing listens).
func TestNetworkNamespaceHasLoopback(t *testing.T) {
	b := newBox(t, nil)
	b.needNamespaces()
	res := b.run("exec 3<>/dev/tcp/127.0.0.1/1")
	if !strings.Contains(res.Content, "Connection refused") {
		t.Errorf("loopback in the sandbox: want Connection refused, got:\n%s", res.Content)
	}
}

// waitPID is a command fragment that waits until file pid holds a number.
const waitPID = `while [ ! -s pid ]; do :; done`

// gone fails the test unless the process whose pid a command wrote to
// work/pid no longer exists.
func (b *box) gone(t *testing.T) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(b.work, "pid"))
	if err != nil {
		t.Fatalf("the hiding process never wrote its pid: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		t.Fatalf("pid file: %v", err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("process %d outlived the command (kill 0: %v)", pid, err)
	}
}

// A process that double-forks and calls setsid to leave the process group
// is killed when the command returns, before it can write its file.
func TestHidingProcessesAreKilledWhenTheCommandEnds(t *testing.T) {
	b := newBox(t, nil)
	hide := `( ( setsid bash -c 'echo $$ > pid.tmp && mv pid.tmp pid; read < /dev/zero; sleep 1000; echo late > late' & ) & ); ` + waitPID + `; echo returned`
	res := b.run(hide)
	if !strings.Contains(res.Content, "returned") {
		t.Fatalf("the command did not return normally:\n%s", res.Content)
	}
	b.gone(t)
	absent(t, filepath.Join(b.work, "late"))
}

func TestHidingProcessesAreKilledOnTimeoutAndCancel(t *testing.T) {
	b := newBox(t, nil)
	hide := `setsid -f bash -c 'echo $$ > pid.tmp && mv pid.tmp pid; exec sleep 1000'; ` + waitPID + `; exec sleep 1000`
	t.Run("timeout", func(t *testing.T) {
		os.Remove(filepath.Join(b.work, "pid"))
		res := b.runWith(context.Background(), hide, 1500)
		if res.Meta["timed_out"] != true {
			t.Fatalf("want a timeout:\n%s", res.Content)
		}
		b.gone(t)
	})
	t.Run("cancel", func(t *testing.T) {
		os.Remove(filepath.Join(b.work, "pid"))
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan tools.Result, 1)
		go func() { done <- b.runWith(ctx, hide, 0) }()
		pidFile := filepath.Join(b.work, "pid")
		for {
			if fi, err := os.Stat(pidFile); err == nil && fi.Size() > 0 {
				break
			}
			select {
			case res := <-done:
				t.Fatalf("the command ended early:\n%s", res.Content)
			default:
				time.Sleep(time.Millisecond) // polling for the command's own progress
			}
		}
		cancel()
		if res := <-done; res.Meta["cancelled"] != true {
			t.Fatalf("want a cancellation:\n%s", res.Content)
		}
		b.gone(t)
	})
}

func TestExitStatusAndSignalsPassThrough(t *testing.T) {
	b := newBox(t, nil)
	if res := b.run("exit 3"); exitCode(res) != 3 || !strings.HasSuffix(res.Content, "exit status 3") {
		t.Errorf("exit 3: %d\n%s", exitCode(res), res.Content)
	}
	if res := b.run("kill -9 $$"); !strings.HasSuffix(res.Content, "signal: killed") {
		t.Errorf("kill -9: want signal: killed\n%s", res.Content)
	}
}
