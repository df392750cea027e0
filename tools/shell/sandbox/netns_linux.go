//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// sharedNet is a session's network namespace when the network is off:
// one namespace, in which every command of the session starts, so that a
// server one command starts on 127.0.0.1 (a background process) is
// reachable from the next, while nothing outside is. A thread of the
// agent's makes it (unshare, loopback up) and starts the commands
// (network namespaces are per thread; a child inherits its thread's):
// that thread lives as long as the sandbox, since a command's
// parent-death signal follows the thread that started it, and the
// namespace lives as long as it or a command in it. Making it takes
// CAP_SYS_ADMIN in the agent's own user namespace: where the agent lacks
// it, each command has a namespace of its own, and nothing was started
// for nothing.
type sharedNet struct {
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
			if other.net != nil && other.ns {
				l.netBorrowed = true
				return other.net, ""
			}
		}
	}
	n, err := startSharedNet()
	if err != nil {
		return nil, err.Error()
	}
	return n, ""
}

// startSharedNet starts the thread that makes the session's network
// namespace and starts its commands.
func startSharedNet() (*sharedNet, error) {
	n := &sharedNet{reqs: make(chan func()), done: make(chan struct{}), stopped: make(chan struct{})}
	made := make(chan error, 1)
	go n.serve(made)
	if err := <-made; err != nil {
		return nil, fmt.Errorf("making the network namespace: %w", err)
	}
	return n, nil
}

// serve makes the namespace on a thread of its own, loopback up, and runs
// the starts sent to it until close. Once the namespace is made the
// thread is never unlocked: it ends with the goroutine, so that no other
// goroutine runs in the namespace. Where it cannot be made (the agent
// lacks CAP_SYS_ADMIN: the usual case for a person's own account) the
// thread goes back to the runtime in the agent's namespace instead of
// ending: a thread's end sends the parent-death signal to every process
// it started, and a goroutine that started the namespace probe or a
// command may have run on this very thread.
func (n *sharedNet) serve(made chan<- error) {
	defer close(n.stopped)
	runtime.LockOSThread()
	own, err := os.Open("/proc/thread-self/ns/net")
	if err != nil {
		runtime.UnlockOSThread()
		made <- err
		return
	}
	defer own.Close()
	if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
		runtime.UnlockOSThread() // unchanged
		made <- err
		return
	}
	if err := loopbackUp(); err != nil {
		if unix.Setns(int(own.Fd()), unix.CLONE_NEWNET) == nil {
			runtime.UnlockOSThread() // back in the agent's namespace
		}
		made <- err
		return
	}
	own.Close()
	made <- nil
	for {
		select {
		case f := <-n.reqs:
			f()
		case <-n.done:
			return
		}
	}
}

// loopbackUp brings up the loopback interface of the calling thread's
// network namespace (a socket belongs to the namespace of the thread that
// made it).
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("loopback: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("loopback flags: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP | unix.IFF_RUNNING)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("loopback up: %w", err)
	}
	return nil
}

// adopt marks cmd, built with a network namespace of its own, to be
// started in the session's instead by start. Started otherwise (cmd.Start),
// it keeps a namespace of its own: the network stays off either way.
func (n *sharedNet) adopt(cmd *exec.Cmd) { n.pending.Store(cmd, true) }

// forget unmarks cmd, which will not be started.
func (n *sharedNet) forget(cmd *exec.Cmd) { n.pending.Delete(cmd) }

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
