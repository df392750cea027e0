//go:build linux

package sandbox

// Escapes found in a security review of the Linux sandbox. Each test fails
// while the escape works and passes once it is closed. They use the layout
// of newBox (escape_linux_test.go): base/work, base/tmp, base/outside.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agent-dev/agent/tools/shell"
)

// needTool skips a test whose exploit needs a program the machine lacks.
func needTool(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("%s is not installed", name)
	}
}

// sq quotes s for bash.
func sq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// HIGH. The sandbox re-executes the agent's executable by path for every
// command, and the helper confines itself only after it starts. When that
// executable lies in a writable root (`go run` builds it under /tmp, a
// developer runs ./agent from the repository, `go install` puts it in
// ~/go/bin and the agent runs in $HOME), one command replaces it (rename
// over the path: no ETXTBSY) and the next command starts the replacement
// unconfined.
//
// The helper is now started as /proc/self/exe. The test runs a copy of this
// test binary from inside the working directory as the "agent", whose first
// command replaces that copy and whose second command must still be
// confined.
func TestAgentExecutableInAWritableRoot(t *testing.T) {
	if dirs := os.Getenv("SANDBOX_EXE_CHILD"); dirs != "" {
		exeChild(t, strings.Split(dirs, ":"))
		return
	}
	b := newBox(t, nil)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(b.work, "bin", "agent")
	os.MkdirAll(filepath.Dir(exe), 0o755)
	copyFile(t, self, exe)
	cmd := exec.Command(exe, "-test.run=^TestAgentExecutableInAWritableRoot$", "-test.v")
	cmd.Env = append(os.Environ(), "SANDBOX_EXE_CHILD="+strings.Join([]string{b.work, b.tmp, b.outside}, ":"))
	out, err := cmd.CombinedOutput()
	t.Logf("the agent run from the working directory:\n%s", out)
	if err != nil {
		t.Fatalf("the child agent failed: %v", err)
	}
	absent(t, filepath.Join(b.outside, "escaped"))
}

// exeChild is the agent of TestAgentExecutableInAWritableRoot: it
// runs from work/bin/agent; dirs are work, tmp and outside.
func exeChild(t *testing.T, dirs []string) {
	work, tmp, outside := dirs[0], dirs[1], dirs[2]
	sb, err := New(Policy{Mode: WorkspaceWrite, Dir: work, TempDirs: []string{tmp}})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	b := &box{t: t, work: work, tmp: tmp, outside: outside, sb: sb,
		tool: shell.New(shell.Config{Dir: work, Build: sb.Build, KillGrace: time.Second})}
	res := b.run(fmt.Sprintf(`printf '#!/bin/sh\necho escaped > %s\n' > bin/new && chmod +x bin/new && mv bin/new bin/agent`, filepath.Join(outside, "escaped")))
	t.Logf("first command:\n%s", res.Content)
	if exitCode(res) != 0 {
		t.Fatalf("the first command could not replace the agent's file")
	}
	res = b.run("true")
	t.Logf("second command:\n%s", res.Content)
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}

// HIGH. The protected paths are read-only bind mounts on fixed paths. A
// mount point cannot be renamed, but its parent can, and a missing path is
// not protected at all, so a command can put writable files where git and
// the agent will read them after the command, outside the sandbox.
func TestProtectedPathsBypassed(t *testing.T) {
	needTool(t, "git")
	t.Run("parent .git renamed", func(t *testing.T) {
		b := newBox(t, nil)
		b.needNamespaces()
		res := b.run(`mv .git .git.old && mkdir -p .git/hooks && cp .git.old/config .git/config && ` +
			`printf '#!/bin/sh\necho evil\n' > .git/hooks/pre-commit && printf '[core]\n\tfsmonitor = evil\n' >> .git/config`)
		t.Logf("command output:\n%s", res.Content)
		absent(t, filepath.Join(b.work, ".git", "hooks", "pre-commit"))
		unchanged(t, filepath.Join(b.work, ".git", "config"), "[core]\n")
	})
	t.Run("git init where there was no repository", func(t *testing.T) {
		b := newBox(t, nil)
		b.needNamespaces()
		os.RemoveAll(filepath.Join(b.work, ".git"))
		res := b.run(`git init -q && printf '#!/bin/sh\necho evil\n' > .git/hooks/pre-commit && git config core.fsmonitor evil`)
		t.Logf("command output:\n%s", res.Content)
		absent(t, filepath.Join(b.work, ".git", "hooks", "pre-commit"))
		if out, _ := exec.Command("git", "-C", b.work, "config", "core.fsmonitor").Output(); len(out) > 0 {
			t.Errorf("the command set core.fsmonitor = %s in the repository's config", bytes.TrimSpace(out))
		}
	})
	t.Run("git commondir", func(t *testing.T) {
		// git reads config and hooks from $GIT_DIR/commondir when that
		// file exists: .git itself is writable, so the command points git
		// at a directory of its own, without touching hooks or config.
		b := newBox(t, nil)
		b.needNamespaces()
		if out, err := exec.Command("git", "init", "-q", b.work).CombinedOutput(); err != nil {
			t.Fatalf("git init: %v\n%s", err, out)
		}
		res := b.run(`cp -r .git/. evil && printf '[core]\n\trepositoryformatversion = 0\n\tfsmonitor = evil\n' > evil/config && ` +
			`printf '#!/bin/sh\necho evil\n' > evil/hooks/pre-commit && chmod +x evil/hooks/pre-commit && echo "$PWD/evil" > .git/commondir`)
		t.Logf("command output:\n%s", res.Content)
		out, err := exec.Command("git", "-C", b.work, "rev-parse", "--git-path", "hooks").CombinedOutput()
		got, want := strings.TrimSpace(string(out)), filepath.Join(b.work, ".git", "hooks")
		if !filepath.IsAbs(got) {
			got = filepath.Join(b.work, got)
		}
		if err != nil || got != want {
			t.Errorf("git now runs the hooks in %s (%v), not %s", got, err, want)
		}
		if out, _ := exec.Command("git", "-C", b.work, "config", "core.fsmonitor").Output(); len(out) > 0 {
			t.Errorf("git now reads core.fsmonitor = %s", bytes.TrimSpace(out))
		}
	})
	t.Run("parent of the agent's config directory renamed", func(t *testing.T) {
		// As when the agent runs in $HOME and its config is ~/.config/agent.
		var conf string
		b := newBox(t, func(p *Policy) {
			conf = filepath.Join(p.Dir, ".config", "agent")
			os.MkdirAll(conf, 0o755)
			os.WriteFile(filepath.Join(conf, "config.toml"), []byte("model = \"m\"\n"), 0o644)
			p.Protected = append(p.Protected, conf)
		})
		b.needNamespaces()
		res := b.run(`mv .config .config.old && mkdir -p .config/agent && echo 'model = "evil"' > .config/agent/config.toml`)
		t.Logf("command output:\n%s", res.Content)
		unchanged(t, filepath.Join(conf, "config.toml"), "model = \"m\"\n")
	})
	t.Run("protected directory that is a symlink", func(t *testing.T) {
		// ~/.config/agent -> ~/dotfiles/agent (stow): the bind mount
		// protects the target; the link itself can be replaced.
		var conf string
		b := newBox(t, func(p *Policy) {
			real := filepath.Join(p.Dir, "dotfiles", "agent")
			os.MkdirAll(real, 0o755)
			os.WriteFile(filepath.Join(real, "config.toml"), []byte("model = \"m\"\n"), 0o644)
			conf = filepath.Join(p.Dir, "cfg", "agent")
			os.MkdirAll(filepath.Dir(conf), 0o755)
			os.Symlink(real, conf)
			p.Protected = append(p.Protected, conf)
		})
		b.needNamespaces()
		res := b.run(`rm cfg/agent && mkdir cfg/agent && echo 'model = "evil"' > cfg/agent/config.toml`)
		t.Logf("command output:\n%s", res.Content)
		unchanged(t, filepath.Join(conf, "config.toml"), "model = \"m\"\n")
	})
}

// HIGH. Network off is a network namespace (or Landlock's TCP rules), but
// connecting to a pathname unix socket is a filesystem operation that
// neither governs (Landlock ABI 7 has no right for it; a read-only mount
// does not stop connect). Every host service on a socket the user may
// write is reachable: docker.sock (root on the host), the D-Bus session
// bus (systemd-run --user), ssh-agent, a database.
func TestUnixSocketReachesHostService(t *testing.T) {
	needTool(t, "python3")
	b := newBox(t, nil)
	path := filepath.Join(b.outside, "service.sock")
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 8); err != nil {
		t.Fatal(err)
	}
	res := b.run(`python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b"hello"); print("connected")' ` + sq(path))
	t.Logf("command output:\n%s", res.Content)
	// A completed connect is in the backlog by now: a non-blocking accept
	// finds it, or EAGAIN says there was none.
	c, _, err := syscall.Accept4(fd, syscall.SOCK_CLOEXEC)
	if err == nil {
		syscall.Close(c)
		t.Errorf("a host service listening on %s accepted a connection from the sandbox with the network off", path)
	} else if !errors.Is(err, syscall.EAGAIN) {
		t.Fatalf("accept: %v", err)
	}
}

// MEDIUM. The helper runs in the agent's session (the tool only calls
// setpgid), so /dev/tty, which the ruleset lets commands write and ioctl,
// is the agent's controlling terminal. With TIOCSTI (dev.tty.legacy_tiocsti
// = 1, the kernel default) a command types into the terminal: the agent's
// TUI reads it as the user's keystrokes (an approval, a prompt), or the
// user's shell runs it once the agent exits. Even without TIOCSTI it can
// write to the screen around the agent's own output (bubblewrap's
// CVE-2017-5226). The test runs a child "agent" whose controlling terminal
// is a pseudo-terminal and reads back what a command injected.
func TestControllingTerminalIsShared(t *testing.T) {
	if os.Getenv("REVIEW_TTY_CHILD") == "1" {
		ttyChild(t)
		return
	}
	needLandlock(t)
	needTool(t, "python3")
	master, slave := openPTY(t)
	defer master.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestControllingTerminalIsShared$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), "REVIEW_TTY_CHILD=1")
	var out bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	err := cmd.Run()
	slave.Close()
	if err != nil {
		t.Errorf("in a terminal, a sandboxed command typed into the agent's terminal:\n%s", out.String())
	}
}

// ttyChild is the agent of TestControllingTerminalIsShared: its stdin
// is its controlling terminal.
func ttyChild(t *testing.T) {
	b := newBox(t, nil)
	res := b.run(`python3 -c 'import fcntl,termios; f=open("/dev/tty","wb",buffering=0); [fcntl.ioctl(f, termios.TIOCSTI, bytes([c])) for c in b"echo pwned\n"]; print("typed")'`)
	t.Logf("command output:\n%s", res.Content)
	if err := syscall.SetNonblock(0, true); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 256)
	n, _ := syscall.Read(0, buf)
	if n > 0 {
		t.Errorf("the agent read %q from its terminal: a sandboxed command injected it", buf[:n])
	}
}

// openPTY opens a pseudo-terminal pair.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	return m, s
}

// MEDIUM. Landlock scopes signals to the sandbox's domain, but the helper
// restricted itself with the same ruleset, so it is inside that domain: a
// command may SIGKILL (or SIGSTOP) the very process that is to kill its
// descendants. Those that left the process group (setsid) are reparented
// to init and outlive the command, still confined but unsupervised (they
// keep writing the workspace after the agent has moved on).
func TestCommandKillsItsHelper(t *testing.T) {
	b := newBox(t, nil)
	res := b.run(`setsid -f bash -c 'echo $$ > pid.tmp && mv pid.tmp pid; exec sleep 1000'; ` + waitPID + `; kill -9 $PPID`)
	t.Logf("command output:\n%s", res.Content)
	b.gone(t)
}

// MEDIUM-LOW. No IPC namespace: System V shared memory, semaphores and
// message queues, and POSIX message queues, are the host's. A command can
// attach any segment of the user's processes (same uid) and change it, and
// can create objects that outlive it.
func TestSysVSharedMemoryIsTheHosts(t *testing.T) {
	needTool(t, "python3")
	b := newBox(t, nil)
	id, err := unix.SysvShmGet(unix.IPC_PRIVATE, 4096, unix.IPC_CREAT|0o600)
	if err != nil {
		t.Skipf("System V shared memory: %v", err)
	}
	defer unix.SysvShmCtl(id, unix.IPC_RMID, nil)
	mem, err := unix.SysvShmAttach(id, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.SysvShmDetach(mem)
	copy(mem, "original")
	res := b.run(fmt.Sprintf(`python3 -c 'import ctypes; libc=ctypes.CDLL(None, use_errno=True); libc.shmat.restype=ctypes.c_void_p; p=libc.shmat(%d, None, 0); assert p not in (None, ctypes.c_void_p(-1).value), ctypes.get_errno(); ctypes.memmove(p, b"evil....", 8); print("written")'`, id))
	t.Logf("command output:\n%s", res.Content)
	if got := string(mem[:8]); got != "original" {
		t.Errorf("a host shared memory segment was changed by the sandbox: %q", got)
	}
}

// LOW. The helper starts bash with os.StartProcess, which passes on every
// descriptor not marked close-on-exec. Go marks its own, but not those the
// agent inherited from what started it (a shell, an IDE, a CI runner, a
// wrapper script): Landlock checks opens, not descriptors already open, so
// a command writes through them. Here the test process stands for the
// agent and holds such a descriptor on a file outside the writable roots.
func TestInheritedDescriptorsReachTheCommand(t *testing.T) {
	b := newBox(t, nil)
	f := filepath.Join(b.outside, "f")
	fd, err := syscall.Open(f, syscall.O_WRONLY|syscall.O_APPEND, 0) // no O_CLOEXEC, as if inherited
	if err != nil {
		t.Fatal(err)
	}
	res := b.run(fmt.Sprintf("echo evil >&%d", fd))
	syscall.Close(fd)
	t.Logf("command output:\n%s", res.Content)
	unchanged(t, f, "original\n")
}

// LOW. protectedNow runs in the agent, unconfined, before every command:
// it follows symlinks when it looks for .git and creates the missing hooks
// directory with MkdirAll. One command replaces .git with a symlink to a
// directory outside the writable roots; the next command makes the agent
// create "hooks" there (and bind-mounts that directory inside the sandbox).
// The same holds for a missing protected directory of the agent's whose
// parent a command replaces with a symlink.
func TestProtectedNowFollowsSymlinks(t *testing.T) {
	b := newBox(t, nil)
	b.needNamespaces()
	target := filepath.Join(b.outside, "target")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	res := b.run("mv .git .git.old && ln -s " + sq(target) + " .git")
	t.Logf("first command:\n%s", res.Content)
	b.run("true")
	absent(t, filepath.Join(target, "hooks"))
}

// injectPy is the exploit of TestHelperThreadsEscapeLandlock.
