//go:build linux

package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/agent-dev/agent/tools/shell/sandbox/helper"
)

// sharedNet is a session's network namespace when the network is off:
// one namespace, kept by a helper (helper.Options.HoldNet), in which every
// command of the session starts, so that a server one command starts on
// 127.0.0.1 (a background process) is reachable from the next, while
// nothing outside is. A command joins it by being started from a thread
// of the agent's that entered the namespace (network namespaces are per
// thread; a child inherits its thread's): that thread lives as long as
// the sandbox, since a command's parent-death signal follows the thread
// that started it. Entering the namespace takes CAP_SYS_ADMIN in the
// agent's own user namespace: where the agent lacks it, each command has a
// namespace of its own, as before.
type sharedNet struct {
	keeper  *netHolder
	reqs    chan func()   // run on the namespace's thread
	done    chan struct{} // closed by close
	stopped chan struct{} // closed when the thread's goroutine ended
	pending sync.Map      // *exec.Cmd built to start in the namespace
	once    sync.Once
}

// sessionNet is the network namespace the session's commands start in:
// Policy.NetworkOf's when it keeps one, else one of this sandbox's own;
// nil, with why, when none can be kept (each command then has its own).
func (l *linux) sessionNet() (*sharedNet, string) {
	if of := l.p.NetworkOf; of != nil && !of.policy.Network {
		if other, ok := of.impl.(*linux); ok {
			other.setup()
			if other.net != nil {
				l.netBorrowed = true
				return other.net, ""
			}
		}
	}
	n, err := l.startSharedNet()
	if err != nil {
		return nil, err.Error()
	}
	return n, ""
}

// startSharedNet starts the keeper of the session's network namespace and
// the thread that enters it.
func (l *linux) startSharedNet() (*sharedNet, error) {
	h, err := l.startKeeper()
	if err != nil {
		return nil, err
	}
	return h.keep()
}

// startKeeper starts the keeper of the session's network namespace (new
// user and network namespaces, loopback up) without waiting for it: keep
// does.
func (l *linux) startKeeper() (*netHolder, error) {
	o := helper.Options{RulesetFD: -1, HoldNet: true}
	attr := l.sysProcAttr(true, &o)
	cmd := l.helperCmd(l.helper(), o.Args(), nil)
	cmd.SysProcAttr = attr
	cmd.SysProcAttr.Cloneflags &^= syscall.CLONE_NEWNS | syscall.CLONE_NEWIPC
	cmd.SysProcAttr.Cloneflags |= syscall.CLONE_NEWNET
	stderr := &strings.Builder{}
	cmd.Stderr = stderr
	h, err := startHolder(cmd)
	if err != nil {
		return nil, err
	}
	h.stderr = stderr
	return h, nil
}

// keep waits for the keeper to be ready and starts the thread that enters
// its namespace; the keeper is stopped when it cannot.
func (h *netHolder) keep() (*sharedNet, error) {
	if err := h.ready(); err != nil {
		return nil, fmt.Errorf("the network namespace's keeper: %s", strings.TrimSpace(h.stderr.String()))
	}
	return h.enter()
}

// netHolder is a started keeper of a network namespace (a helper with
// HoldNet): its standard input, which it holds the namespace until the
// end of, and its standard output.
type netHolder struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    *bufio.Reader
	stderr *strings.Builder // what it said, once it ended (startKeeper's)
	// once stops the keeper once; gone is closed when it has ended.
	once sync.Once
	gone chan struct{}
}

// startHolder starts cmd, a helper with HoldNet, with pipes for its
// standard input and output; it dies with the agent (SIGKILL).
func startHolder(cmd *exec.Cmd) (*netHolder, error) {
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the network namespace's keeper: %w", err)
	}
	return &netHolder{cmd: cmd, stdin: stdin, out: bufio.NewReader(stdout), gone: make(chan struct{})}, nil
}

// ready reads the keeper's standard output up to its line "ready". A
// keeper that ends first (its set-up failed: its stderr says why) is
// waited for, and the error is the read's.
func (h *netHolder) ready() error {
	for {
		line, err := h.out.ReadString('\n')
		if strings.TrimSpace(line) == "ready" {
			return nil
		}
		if err != nil {
			h.stop()
			return err
		}
	}
}

// stop ends the keeper and waits for it (a second stop waits for the
// first's end).
func (h *netHolder) stop() {
	h.once.Do(func() {
		h.stdin.Close()
		h.cmd.Wait()
		close(h.gone)
	})
	<-h.gone
}

// enter starts the thread that enters the keeper's namespace, once the
// keeper said it is ready; the keeper is stopped when it cannot.
func (h *netHolder) enter() (*sharedNet, error) {
	n := &sharedNet{keeper: h, reqs: make(chan func()), done: make(chan struct{}), stopped: make(chan struct{})}
	ns, err := os.Open(fmt.Sprintf("/proc/%d/ns/net", h.cmd.Process.Pid))
	if err != nil {
		h.stop()
		return nil, fmt.Errorf("opening the network namespace: %w", err)
	}
	defer ns.Close()
	entered := make(chan error, 1)
	go n.serve(int(ns.Fd()), entered)
	if err := <-entered; err != nil {
		h.stop()
		return nil, fmt.Errorf("entering the network namespace: %w", err)
	}
	// The thread holds the namespace now: the keeper goes, and the
	// kernel's teardown of its namespaces goes on beside the session's
	// first command instead of in the sandbox's close.
	go h.stop()
	return n, nil
}

// serve enters the namespace on a thread of its own and runs the starts
// sent to it until close. The thread is never unlocked: it ends with the
// goroutine, so that no other goroutine runs in the namespace.
func (n *sharedNet) serve(fd int, entered chan<- error) {
	defer close(n.stopped)
	runtime.LockOSThread()
	if err := unix.Setns(fd, unix.CLONE_NEWNET); err != nil {
		entered <- err
		return
	}
	entered <- nil
	for {
		select {
		case f := <-n.reqs:
			f()
		case <-n.done:
			return
		}
	}
}

// adopt marks cmd, built with a network namespace of its own, to be
// started in the session's instead by start. Started otherwise (cmd.Start),
// it keeps a namespace of its own: the network stays off either way.
func (n *sharedNet) adopt(cmd *exec.Cmd) { n.pending.Store(cmd, true) }

// start starts cmd: in the session's namespace when adopt marked it.
func (n *sharedNet) start(cmd *exec.Cmd) error {
	if _, ok := n.pending.LoadAndDelete(cmd); !ok {
		return cmd.Start()
	}
	cmd.SysProcAttr.Cloneflags &^= syscall.CLONE_NEWNET
	errc := make(chan error, 1)
	select {
	case n.reqs <- func() { errc <- cmd.Start() }:
		return <-errc
	case <-n.done:
		return errors.New("the sandbox is closed")
	}
}

// close ends the thread and the keeper. Commands still running in the
// namespace get their parent-death signal with the thread.
func (n *sharedNet) close() {
	n.once.Do(func() {
		close(n.done)
		<-n.stopped
		n.keeper.stop()
	})
}

// backgroundGitReadOnly reports whether a background command's git
// directory is mounted read-only (see build): it takes a mount namespace.
func (l *linux) backgroundGitReadOnly() bool {
	if l.abi == 0 {
		return false
	}
	l.setup()
	return l.ns
}
