package helper

import (
	"errors"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"
	"unsafe"
)

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
	// Most commands leave nothing behind: then there is no child at all
	// (ECHILD), and nothing to list. The program was reaped already, so its
	// own children were reparented to this subreaper before that.
	var ws syscall.WaitStatus
	for {
		_, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		if errors.Is(err, syscall.ECHILD) {
			return
		}
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
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
	tasks, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	if err != nil {
		return nil // gone
	}
	var kids []int
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + t.Name() + "/children")
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
		i := lastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := fields(s[i+1:])
		if len(f) < 2 || len(f[0]) != 1 {
			continue
		}
		if ppid, err := strconv.Atoi(f[1]); err != nil || ppid != pid {
			continue
		}
		if self, err := strconv.Atoi(firstField(s)); err == nil {
			kids = append(kids, self)
		}
	}
	return kids
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
	dieAs(sig)
	// A signal whose default action is not to terminate leaves us here:
	// report it as a shell does.
	return 128 + int(sig)
}

// kernelSigaction is the kernel's struct sigaction on amd64 and arm64
// (handler, flags, restorer, mask); all zero, it is SIG_DFL.
type kernelSigaction struct {
	handler, flags, restorer, mask uint64
}

// dieAs ends this process by sig's default action, as the program ended.
// signal.Reset is not enough: for the signals the Go runtime keeps for
// itself (SIGABRT, SIGQUIT, SIGSEGV, SIGBUS, SIGPIPE...) its handler stays,
// and the process ended with a Go crash report and exit 2 instead. So the
// default action is set with rt_sigaction, the signal unblocked on this
// thread (the one run locked) and sent to it.
func dieAs(sig syscall.Signal) {
	signal.Reset(sig)
	var dfl kernelSigaction
	syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&dfl)), 0, 8, 0, 0)
	mask := uint64(1) << (uint(sig) - 1)
	syscall.RawSyscall6(syscall.SYS_RT_SIGPROCMASK, 1 /* SIG_UNBLOCK */, uintptr(unsafe.Pointer(&mask)), 0, 8, 0, 0)
	syscall.Tgkill(os.Getpid(), syscall.Gettid(), sig)
	time.Sleep(10 * time.Millisecond)
}
