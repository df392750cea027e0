//go:build linux

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Process is a process as /proc shows it; its start time (in clock ticks
// since boot) tells it from a later process that reused its id.
type Process struct {
	pid, ppid, pgrp, session int
	start                    uint64
	state                    byte
}

// readProcess reads /proc/pid/stat; ok is false once the process is gone.
func readProcess(pid int) (Process, bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return Process{}, false
	}
	// The command name, in parentheses, may hold spaces; the fields
	// after its closing parenthesis are state, ppid, pgrp, session, ...,
	// and the start time is the 20th of them.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return Process{}, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return Process{}, false
	}
	p := Process{pid: pid, state: f[0][0]}
	p.ppid, _ = strconv.Atoi(f[1])
	p.pgrp, _ = strconv.Atoi(f[2])
	p.session, _ = strconv.Atoi(f[3])
	p.start, _ = strconv.ParseUint(f[19], 10, 64)
	return p, true
}

// processes lists every process of the machine (that this user may see).
func processes() []Process {
	entries, _ := os.ReadDir("/proc")
	var out []Process
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := readProcess(pid); ok {
			out = append(out, p)
		}
	}
	return out
}

// ProcessTree returns root and its descendants now running, and every
// process of root's session (those whose parent already exited).
func ProcessTree(root int) []Process {
	all := processes()
	in := map[int]bool{root: true}
	for grew := true; grew; {
		grew = false
		for _, p := range all {
			if !in[p.pid] && (in[p.ppid] || p.session == root) {
				in[p.pid], grew = true, true
			}
		}
	}
	var out []Process
	for _, p := range all {
		if in[p.pid] {
			out = append(out, p)
		}
	}
	return out
}

// running reports whether p still runs: a process with its id and start
// time exists and has not exited (a zombie has, and only waits for its
// parent to reap it).
func (p Process) running() bool {
	now, ok := readProcess(p.pid)
	return ok && now.start == p.start && now.state != 'Z' && now.state != 'X'
}

// WaitExited waits until every process of procs has exited, and any
// process later started in session (0: none) too. tmux offers no event for
// a process that is not its caller's child, so this polls; past hangLimit
// it reports the processes left as an error and kills them.
func WaitExited(t *testing.T, procs []Process, session int) {
	t.Helper()
	deadline := time.Now().Add(HangLimit)
	for {
		var left []Process
		for _, p := range procs {
			if p.running() {
				left = append(left, p)
			}
		}
		if session > 0 {
			for _, p := range processes() {
				if p.session == session && p.state != 'Z' && p.state != 'X' {
					left = append(left, p)
				}
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, p := range left {
				syscall.Kill(p.pid, syscall.SIGKILL)
			}
			t.Errorf("%d processes still ran %v after the test ended: %+v", len(left), HangLimit, left)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// OwnSession makes cmd start a session of its own, whose id is its process
// id: what it starts stays in that session (unless it starts one of its
// own), so that waitExited can wait for it.
func OwnSession(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
}
