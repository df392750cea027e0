package helper

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"
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
	if err := confine(o); err != nil {
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

// waitFor reaps children until pid exits and returns its status; the other
// children reaped on the way (orphans this subreaper inherited) are
// dropped.
func waitFor(pid int) syscall.WaitStatus {
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(-1, &ws, 0, nil)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case err != nil:
			return 0 // ECHILD: cannot happen while pid is unreaped
		case got == pid:
			return ws
		}
	}
}

// killAll kills every remaining descendant and reaps them. A killed
// process's children are reparented to this subreaper, so each round finds
// the next generation, until there are no children left.
func killAll() {
	for {
		kids := children()
		for _, k := range kids {
			syscall.Kill(k, syscall.SIGKILL)
		}
		opts := syscall.WNOHANG
		if len(kids) > 0 {
			opts = 0 // something was killed: its exit will come
		}
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(-1, &ws, opts, nil)
		switch {
		case errors.Is(err, syscall.EINTR):
		case err != nil: // ECHILD: none left
			return
		case got == 0 && len(kids) == 0:
			// A child exists that the listing missed (it was being
			// reparented): list again.
			time.Sleep(time.Millisecond)
		}
	}
}

// signalAll sends sig to every descendant, walking the tree of children.
func signalAll(sig syscall.Signal) {
	seen := map[int]bool{}
	todo := children()
	for len(todo) > 0 {
		pid := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if seen[pid] {
			continue
		}
		seen[pid] = true
		syscall.Kill(pid, sig)
		todo = append(todo, childrenOf(pid)...)
	}
}

// children lists this process's children.
func children() []int { return childrenOf(os.Getpid()) }

// childrenOf lists the children of pid from /proc/PID/task/*/children
// (every thread's), or, on a kernel without that file, by scanning the
// parent of every process.
func childrenOf(pid int) []int {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return nil // gone
	}
	var kids []int
	for _, t := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", pid, t.Name()))
		if errors.Is(err, os.ErrNotExist) {
			return scanChildren(pid)
		}
		kids = appendInts(kids, b)
	}
	return kids
}

// scanChildren finds pid's children by reading every process's parent.
func scanChildren(pid int) []int {
	ents, _ := os.ReadDir("/proc")
	var kids []int
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...; comm may hold spaces and parentheses.
		s := string(b)
		i := lastIndex(s, ')')
		var state byte
		var ppid, self int
		if i < 0 {
			continue
		}
		if _, err := fmt.Sscanf(s[i+1:], " %c %d", &state, &ppid); err != nil || ppid != pid {
			continue
		}
		if _, err := fmt.Sscanf(s, "%d", &self); err == nil {
			kids = append(kids, self)
		}
	}
	return kids
}

func lastIndex(s string, c byte) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// appendInts appends the space-separated decimal numbers of b.
func appendInts(dst []int, b []byte) []int {
	n, in := 0, false
	for _, c := range b {
		if c >= '0' && c <= '9' {
			n, in = n*10+int(c-'0'), true
			continue
		}
		if in {
			dst = append(dst, n)
		}
		n, in = 0, false
	}
	if in {
		dst = append(dst, n)
	}
	return dst
}

// status turns the program's wait status into the helper's: its exit code,
// or death by the same signal (so the agent reports "signal: killed").
func status(ws syscall.WaitStatus) int {
	if !ws.Signaled() {
		return ws.ExitStatus()
	}
	sig := ws.Signal()
	signal.Reset(sig)
	syscall.Kill(os.Getpid(), sig)
	// A signal whose default action is not to terminate, or one the Go
	// runtime keeps for itself, leaves us here: report it as a shell does.
	time.Sleep(10 * time.Millisecond)
	return 128 + int(sig)
}

// confine sets up the namespaces' contents: private mounts, read-only
// binds and the loopback interface.
func confine(o Options) error {
	if o.PrivateMounts {
		if err := syscall.Mount("none", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
			return fmt.Errorf("making mounts private: %v", err)
		}
	}
	for _, p := range o.Writable {
		if err := syscall.Mount(p, p, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
			return fmt.Errorf("bind-mounting %s: %v", p, err)
		}
	}
	if o.ReadOnlyRest {
		if err := readOnlyRest(o.Writable); err != nil {
			return err
		}
	}
	for _, p := range o.Pinned {
		if err := syscall.Mount(p, p, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
			return fmt.Errorf("bind-mounting %s: %v", p, err)
		}
	}
	for _, p := range o.ReadOnly {
		if err := syscall.Mount(p, p, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
			return fmt.Errorf("bind-mounting %s: %v", p, err)
		}
		if err := remountReadOnly(p); err != nil {
			return err
		}
	}
	if o.PrivateMounts {
		// The working directory was entered before the bind mounts: enter
		// it again by name, so that it is the writable mount now on top.
		if wd, err := os.Getwd(); err == nil {
			if err := syscall.Chdir(wd); err != nil {
				return fmt.Errorf("re-entering %s: %v", wd, err)
			}
		}
	}
	if o.Loopback {
		if err := loopbackUp(); err != nil {
			return err
		}
	}
	return nil
}

// readOnlyRest remounts read-only every mount point listed in
// /proc/self/mountinfo except those within a writable root and those under
// /dev, /proc and /sys (devices, and kernel interfaces Landlock already
// denies writing).
func readOnlyRest(writable []string) error {
	raw, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return fmt.Errorf("listing mounts: %v", err)
	}
	done := map[string]bool{}
	for _, line := range strings.Split(string(raw), "\n") {
		// id parent major:minor root mount-point options ...
		f := strings.Fields(line)
		if len(f) < 5 {
			continue
		}
		mp := unescapeMount(f[4])
		if done[mp] || under(mp, "/dev") || under(mp, "/proc") || under(mp, "/sys") {
			continue
		}
		done[mp] = true
		skip := false
		for _, w := range writable {
			skip = skip || under(mp, w)
		}
		if skip {
			continue
		}
		if err := remountReadOnly(mp); err != nil {
			if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.EACCES) {
				continue // hidden under another mount, or not ours to see
			}
			return err
		}
	}
	return nil
}

// under reports whether path is dir or beneath it.
func under(path, dir string) bool {
	return path == dir || dir == "/" || strings.HasPrefix(path, dir+"/")
}

// unescapeMount decodes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// remountReadOnly makes the mount at path read-only, keeping the flags the
// kernel locks for a less privileged namespace (nosuid, nodev, noexec, the
// atime flags).
func remountReadOnly(path string) error {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return fmt.Errorf("statfs %s: %w", path, err)
	}
	flags := uintptr(syscall.MS_REMOUNT | syscall.MS_BIND | syscall.MS_RDONLY)
	for _, f := range []struct{ st, ms uintptr }{
		{0x2, syscall.MS_NOSUID}, {0x4, syscall.MS_NODEV}, {0x8, syscall.MS_NOEXEC},
		{0x400, syscall.MS_NOATIME}, {0x800, syscall.MS_NODIRATIME}, {0x1000, syscall.MS_RELATIME},
	} {
		if uintptr(st.Flags)&f.st != 0 {
			flags |= f.ms
		}
	}
	if err := syscall.Mount("none", path, "", flags, ""); err != nil {
		return fmt.Errorf("making %s read-only: %w", path, err)
	}
	return nil
}

// loopbackUp sets the IFF_UP flag of "lo" with SIOCSIFFLAGS, so that
// servers a command starts on 127.0.0.1 can be reached from inside the
// sandbox's network namespace (and nothing else can).
func loopbackUp() error {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("loopback: %v", err)
	}
	defer syscall.Close(fd)
	var req struct {
		name  [syscall.IFNAMSIZ]byte
		flags uint16
		_     [22]byte
	}
	copy(req.name[:], "lo")
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.SIOCGIFFLAGS, uintptr(unsafe.Pointer(&req))); e != 0 {
		return fmt.Errorf("loopback flags: %v", e)
	}
	req.flags |= syscall.IFF_UP | syscall.IFF_RUNNING
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.SIOCSIFFLAGS, uintptr(unsafe.Pointer(&req))); e != 0 {
		return fmt.Errorf("loopback up: %v", e)
	}
	return nil
}
