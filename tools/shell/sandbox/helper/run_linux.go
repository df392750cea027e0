package helper

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"
)

// Linux constants the standard library's syscall package lacks. The
// Landlock system call numbers are the same on every architecture (they
// come after the unified numbering, Linux 5.13).
const (
	sysLandlockRestrictSelf = 446
	prSetChildSubreaper     = 36
	prSetNoNewPrivs         = 38
	sysCloseRange           = 436 // also the same everywhere (Linux 5.9)
	closeRangeCloexec       = 1 << 2
)

// run sets up the namespaces, starts the program confined, supervises it,
// and returns the exit status to leave with.
func run(o Options) int {
	if o.HoldNet {
		if err := loopbackUp(); err != nil {
			fail(err)
		}
		os.Stdout.WriteString("ready\n")
		io.Copy(io.Discard, os.Stdin) // until the agent closes it, or dies
		return 0
	}
	if o.MakeTmp > 0 {
		if err := makeTmp(o.MakeTmp, 3); err != nil {
			fail(err)
		}
		return 0
	}
	// Joining the cgroup moves the whole process, which waits for an RCU
	// grace period (a few milliseconds): it overlaps the mount set-up, and
	// is done before anything is started.
	joined := make(chan error, 1)
	if o.CgroupFD >= 0 {
		go func() { joined <- joinCgroup(o.CgroupFD) }()
	} else {
		joined <- nil
	}
	if err := confine(o); err != nil {
		fail(err)
	}
	if err := <-joined; err != nil {
		fail(err)
	}
	if o.Probe {
		return 0
	}
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); e != 0 {
		fail(fmt.Errorf("becoming a child subreaper: %v", e))
	}
	// Not dumpable: nothing without CAP_SYS_PTRACE in our user namespace
	// (and the command has no capabilities) may ptrace this process or
	// open its memory.
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_DUMPABLE, 0, 0); e != 0 {
		fail(fmt.Errorf("making the helper undumpable: %v", e))
	}
	// Signals that stop the command: the agent's SIGTERM to the process
	// group, and SIGTERM as this process's parent-death signal.
	stop := make(chan os.Signal, 4)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)

	pid, err := startConfined(o)
	if err != nil {
		fail(err)
	}
	exited := make(chan syscall.WaitStatus, 1)
	go func() { exited <- waitFor(pid) }()

	var ws syscall.WaitStatus
	select {
	case ws = <-exited:
	case sig := <-stop:
		signalAll(sig.(syscall.Signal))
		timer := time.NewTimer(o.Grace)
		select {
		case ws = <-exited:
		case <-timer.C:
			signalAll(syscall.SIGKILL)
			ws = <-exited
		}
		timer.Stop()
	}
	killAll()
	return status(ws)
}

// startConfined starts the program from a thread of its own that confines
// itself first (capabilities dropped, no_new_privs, seccomp, Landlock) and
// ends as soon as the program has started. Landlock and the other
// restrictions are per thread: the program inherits them from that thread,
// while no thread left in the helper shares the program's Landlock domain,
// so the program can neither ptrace nor signal its supervisor (Landlock's
// ptrace rule and, from ABI 6, its signal scope). The program starts in a
// session of its own, without the agent's controlling terminal.
func startConfined(o Options) (int, error) {
	type started struct {
		pid int
		err error
	}
	ch := make(chan started, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
		pid, err := confineThreadAndStart(o)
		ch <- started{pid, err}
	}()
	s := <-ch
	return s.pid, s.err
}

func confineThreadAndStart(o Options) (int, error) {
	if o.SuperviseOnly {
		return startProgram(o)
	}
	if err := dropCapabilities(); err != nil {
		return 0, err
	}
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetNoNewPrivs, 1, 0); e != 0 {
		return 0, fmt.Errorf("setting no_new_privs: %v", e)
	}
	if o.NoUnixSockets {
		if err := denyUnixSockets(); err != nil {
			return 0, err
		}
	}
	if o.RulesetFD >= 0 {
		if _, _, e := syscall.RawSyscall(sysLandlockRestrictSelf, uintptr(o.RulesetFD), 0, 0); e != 0 {
			return 0, fmt.Errorf("landlock_restrict_self: %v", e)
		}
		syscall.Close(o.RulesetFD)
	}
	// Descriptors the agent let us inherit stay out of the program.
	if _, _, e := syscall.RawSyscall(sysCloseRange, 3, ^uintptr(0)>>1, closeRangeCloexec); e != 0 {
		return 0, fmt.Errorf("close_range: %v", e)
	}
	if o.MaxProcs > 0 {
		if err := limitProcesses(o.MaxProcs); err != nil {
			return 0, err
		}
	}
	return startProgram(o)
}

// startProgram starts the program in a session of its own, with only the
// standard descriptors.
func startProgram(o Options) (int, error) {
	if o.SuperviseOnly { // the confined path closed them already
		if _, _, e := syscall.RawSyscall(sysCloseRange, 3, ^uintptr(0)>>1, closeRangeCloexec); e != 0 {
			return 0, fmt.Errorf("close_range: %v", e)
		}
	}
	// syscall.ForkExec rather than os.StartProcess: the latter's first use
	// forks a throwaway child to learn whether pidfds work (0.3 ms).
	pid, err := syscall.ForkExec(o.Program[0], o.Program, &syscall.ProcAttr{
		Env:   os.Environ(),
		Files: []uintptr{0, 1, 2},
		Sys:   &syscall.SysProcAttr{Setsid: true},
	})
	if err != nil {
		return 0, fmt.Errorf("starting %s: %v", o.Program[0], err)
	}
	return pid, nil
}
