package helper

import (
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"
	"unsafe"
)

// Linux constants the standard library's syscall package lacks. The
// Landlock system call numbers are the same on every architecture (they
// come after the unified numbering, Linux 5.13).
const (
	sysLandlockRestrictSelf = 446
	prSetName               = 15
	prSetChildSubreaper     = 36
	prSetNoNewPrivs         = 38
	sysCloseRange           = 436 // also the same everywhere (Linux 5.9)
	closeRangeCloexec       = 1 << 2
)

// run sets up the namespaces, starts the program confined, supervises it,
// and returns the exit status to leave with.
func run(o Options) int {
	// Named for ps and top (the main thread, and the threads it starts from
	// now on): started from its memfd, the helper would be called by the
	// descriptor's number.
	name := [16]byte{'a', 'g', 'e', 'n', 't', '-', 's', 'a', 'n', 'd', 'b', 'o', 'x'}
	syscall.RawSyscall(syscall.SYS_PRCTL, prSetName, uintptr(unsafe.Pointer(&name[0])), 0)
	if o.ProbeFD >= 0 {
		failTo = os.NewFile(uintptr(o.ProbeFD), "probe")
	}
	if o.MapIDs {
		if err := mapIDs(o.UID, o.GID); err != nil {
			fail(err)
		}
	}
	switch {
	case o.MakeTmp > 0 && o.Probe:
		// The probe goes on without it: the tmpfs is a bound of the
		// session, not part of the confinement the probe tries.
		if _, err := makeTmp(o.MakeTmp, 3, false, -1, 0); err != nil {
			os.Stdout.WriteString(TmpFailed + err.Error() + "\n")
		}
	case o.MakeTmp > 0 && o.ProbeFD >= 0:
		// The session's tmpfs, made by its first command, which mounts it
		// too (as confine mounts TmpFD).
		rights := o.TmpRights
		if o.RulesetFD < 0 {
			rights = 0
		}
		m, err := makeTmp(o.MakeTmp, o.ProbeFD, true, o.RulesetFD, rights)
		if err != nil {
			failTo.WriteString(TmpFailed + err.Error() + "\n")
		} else {
			o.TmpFD = m
		}
	}
	// The thread that starts the program confines itself while this one
	// sets up the mounts: starting a thread and confining it take a few
	// hundred microseconds that would otherwise add to every command.
	var starter *confinedStarter
	var stop chan os.Signal
	var notified chan struct{}
	if !o.Probe {
		starter = prepareConfined(o)
		if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); e != 0 {
			fail(wrap(e, "becoming a child subreaper"))
		}
		// Not dumpable: nothing without CAP_SYS_PTRACE in our user
		// namespace (and the command has no capabilities) may ptrace this
		// process or open its memory.
		if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_DUMPABLE, 0, 0); e != 0 {
			fail(wrap(e, "making the helper undumpable"))
		}
		// Signals that stop the command: the agent's SIGTERM to the
		// process group, and SIGTERM as this process's parent-death
		// signal. signal.Notify waits for a thread of its own to start, so
		// it is called beside the mounts' set-up, and the program starts
		// only once it has returned; a signal caught before the program
		// has started ends the helper without starting it.
		stop = make(chan os.Signal, 4)
		notified = make(chan struct{})
		go func() {
			signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
			close(notified)
		}()
	}
	// Joining the cgroup moves the whole process, which waits for an RCU
	// grace period (a few milliseconds): it overlaps the mount set-up, and
	// is done before anything is started.
	joined := make(chan error, 1)
	if o.CgroupFD >= 0 && !o.CgroupThread { // else the starting thread joins
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
	// Told to stop while setting up: nothing was started; end as the
	// signal would have ended us.
	<-notified
	select {
	case sig := <-stop:
		signal.Reset(sig)
		syscall.Kill(os.Getpid(), sig.(syscall.Signal))
		return 128 + int(sig.(syscall.Signal))
	default:
	}
	pid, err := starter.start()
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

// confinedStarter is the thread that starts the program: it confines
// itself first (capabilities dropped, no_new_privs, seccomp, Landlock),
// starts the program when told to, and ends as soon as the program has
// started. Landlock and the other restrictions are per thread: the program
// inherits them from that thread, while no thread left in the helper shares
// the program's Landlock domain, so the program can neither ptrace nor
// signal its supervisor (Landlock's ptrace rule and, from ABI 6, its signal
// scope). The program starts in a session of its own, without the agent's
// controlling terminal.
type confinedStarter struct {
	ready chan error    // the thread is confined, or why not
	goOn  chan struct{} // closed: start the program
	done  chan startedProgram
}

type startedProgram struct {
	pid int
	err error
}

// prepareConfined starts the thread, which confines itself at once and
// then waits for start. Nothing else ever runs on it: its goroutine keeps
// it locked and ends with it.
func prepareConfined(o Options) *confinedStarter {
	c := &confinedStarter{ready: make(chan error, 1), goOn: make(chan struct{}), done: make(chan startedProgram, 1)}
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
		var err error
		if o.CgroupThread && o.CgroupFD >= 0 && !o.SuperviseOnly {
			err = joinCgroup(o.CgroupFD) // this thread, and so the program
		}
		if err == nil {
			err = confineThread(o)
		}
		c.ready <- err
		if err != nil {
			return
		}
		<-c.goOn
		// The process bound last: it counts this process's threads too,
		// and the runtime may start some while the mounts are set up.
		if o.MaxProcs > 0 && !o.SuperviseOnly {
			if err := limitProcesses(o.MaxProcs); err != nil {
				c.done <- startedProgram{0, err}
				return
			}
		}
		pid, err := startProgram(o)
		c.done <- startedProgram{pid, err}
	}()
	return c
}

// start has the confined thread start the program, once the thread is
// confined, and returns the program's pid.
func (c *confinedStarter) start() (int, error) {
	if err := <-c.ready; err != nil {
		return 0, err
	}
	close(c.goOn)
	s := <-c.done
	return s.pid, s.err
}

// confineThread confines the calling thread, which then starts the program
// (startProgram); a supervisor only confines nothing.
func confineThread(o Options) error {
	if o.SuperviseOnly {
		return nil
	}
	if err := dropCapabilities(); err != nil {
		return err
	}
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetNoNewPrivs, 1, 0); e != 0 {
		return wrap(e, "setting no_new_privs")
	}
	if o.NoUnixSockets {
		if err := denyUnixSockets(); err != nil {
			return err
		}
	}
	if o.RulesetFD >= 0 {
		if _, _, e := syscall.RawSyscall(sysLandlockRestrictSelf, uintptr(o.RulesetFD), 0, 0); e != 0 {
			return wrap(e, "landlock_restrict_self")
		}
		syscall.Close(o.RulesetFD)
	}
	// Descriptors the agent let us inherit stay out of the program.
	if _, _, e := syscall.RawSyscall(sysCloseRange, 3, ^uintptr(0)>>1, closeRangeCloexec); e != 0 {
		return wrap(e, "close_range")
	}
	return nil
}

// startProgram starts the program in a session of its own, with only the
// standard descriptors.
func startProgram(o Options) (int, error) {
	if o.SuperviseOnly { // the confined path closed them already
		if _, _, e := syscall.RawSyscall(sysCloseRange, 3, ^uintptr(0)>>1, closeRangeCloexec); e != 0 {
			return 0, wrap(e, "close_range")
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
		return 0, wrap(err, "starting "+o.Program[0])
	}
	return pid, nil
}
