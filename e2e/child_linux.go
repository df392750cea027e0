package e2e

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Child is a process started by a command under test, watched through a
// pidfd so that its end can be awaited without polling.
type Child struct {
	Pid   int
	pidfd int
}

// ChildFromFIFO reads the pid a command wrote into fifo (opening the FIFO
// blocks until it does, which is the synchronisation) and watches that
// process.
func ChildFromFIFO(t *testing.T, fifo string) Child {
	t.Helper()
	data, err := os.ReadFile(fifo)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatalf("pid %q: %v", data, err)
	}
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		t.Fatalf("pidfd_open(%d): %v", pid, err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	return Child{Pid: pid, pidfd: fd}
}

// Ended waits at most hangLimit for the process to end (a pidfd becomes
// readable then) and reports whether it did.
func (c Child) Ended() bool {
	fds := []unix.PollFd{{Fd: int32(c.pidfd), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, int(HangLimit.Milliseconds()))
	return err == nil && n == 1
}

// EndedWithin waits at most d for the process to end and reports whether
// it did; a d of zero or less only looks.
func (c Child) EndedWithin(d time.Duration) bool {
	fds := []unix.PollFd{{Fd: int32(c.pidfd), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, int(max(d, 0).Milliseconds()))
	return err == nil && n == 1
}
