//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// tmpSocket is the pair of sockets over which a helper that makes the
// session's tmpfs (helper.Options.MakeTmp) sends it: mine is read by
// receiveTmp, theirs goes to the helper as descriptor 3.
func tmpSocket() (mine, theirs *os.File, err error) {
	pair, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("socketpair: %w", err)
	}
	return os.NewFile(uintptr(pair[0]), "tmp-socket"), os.NewFile(uintptr(pair[1]), "tmp-socket"), nil
}

// receiveTmp reads the tmpfs a helper sent over mine, once the helper and
// the agent's copy of its end are closed (nothing sent: an error).
func receiveTmp(mine *os.File) (*os.File, error) {
	buf, oob := make([]byte, 1), make([]byte, syscall.CmsgSpace(4))
	_, oobn, _, _, err := syscall.Recvmsg(int(mine.Fd()), buf, oob, 0)
	if err != nil {
		return nil, fmt.Errorf("receiving the tmpfs: %w", err)
	}
	msgs, err := syscall.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		return nil, fmt.Errorf("receiving the tmpfs: no descriptor")
	}
	fds, err := syscall.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 {
		return nil, fmt.Errorf("receiving the tmpfs: no descriptor")
	}
	syscall.CloseOnExec(fds[0])
	return os.NewFile(uintptr(fds[0]), "session-tmpfs"), nil
}

// tmpUsage returns the bytes free in the session's tmpfs and its size.
func tmpUsage(f *os.File) (free, size int64, ok bool) {
	var st syscall.Statfs_t
	if f == nil || syscall.Fstatfs(int(f.Fd()), &st) != nil {
		return 0, 0, false
	}
	return int64(st.Bavail) * st.Bsize, int64(st.Blocks) * st.Bsize, true
}

// pidsCgroup is a cgroup of the pids controller made for the session,
// whose pids.max bounds the processes of its commands.
type pidsCgroup struct {
	dir   string
	procs *os.File // cgroup.procs (v2) or tasks (v1), open for writing: each helper joins through it
	// thread: procs is cgroup v1's tasks file, through which the thread
	// that starts a command joins alone (helper.Options.CgroupThread).
	thread bool
	events *os.File // pids.events, read before and after each command (nil: unreadable)
}

// newPidsCgroup makes a cgroup for the session under the agent's own in the
// pids hierarchy (cgroup v1 "pids", or v2 with the pids controller), with
// pids.max = max. It fails where the agent may not make cgroups (an
// unprivileged user without a delegated cgroup).
func newPidsCgroup(max int) (*pidsCgroup, error) {
	base, v2, err := pidsBase()
	if err != nil {
		return nil, err
	}
	removeStale(base, cgroupPrefix, os.Remove) // an empty cgroup only; one with processes stays
	dir, err := os.MkdirTemp(base, fmt.Sprintf("%s%d-", cgroupPrefix, os.Getpid()))
	if err != nil {
		return nil, fmt.Errorf("making a cgroup: %w", err)
	}
	if v2 {
		os.WriteFile(filepath.Join(base, "cgroup.subtree_control"), []byte("+pids"), 0) // may be on already
	}
	if err := os.WriteFile(filepath.Join(dir, "pids.max"), []byte(strconv.Itoa(max)), 0); err != nil {
		os.Remove(dir)
		return nil, fmt.Errorf("setting pids.max: %w", err)
	}
	join := "cgroup.procs"
	if !v2 {
		join = "tasks" // one thread joins: see helper.Options.CgroupThread
	}
	procs, err := os.OpenFile(filepath.Join(dir, join), os.O_WRONLY, 0)
	if err != nil {
		os.Remove(dir)
		return nil, fmt.Errorf("opening %s: %w", join, err)
	}
	events, _ := os.Open(filepath.Join(dir, "pids.events")) // kept open: reading it is two opens less per command
	return &pidsCgroup{dir: dir, procs: procs, thread: !v2, events: events}, nil
}

// cgroupPrefix starts the name of a session's cgroup, followed by the
// agent's process id.
const cgroupPrefix = "agent-sandbox-"

// pidsBase finds the agent's own cgroup in a hierarchy with the pids
// controller.
func pidsBase() (string, bool, error) {
	mounts, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return "", false, err
	}
	own, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", false, err
	}
	var v1, v2 string
	for _, line := range strings.Split(string(mounts), "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		f, g := strings.Fields(pre), strings.Fields(post)
		if !ok || len(f) < 5 || len(g) < 3 {
			continue
		}
		switch {
		case g[0] == "cgroup" && hasWord(g[2], "pids") && v1 == "":
			v1 = f[4]
		case g[0] == "cgroup2" && v2 == "":
			v2 = f[4]
		}
	}
	for _, line := range strings.Split(string(own), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case v1 != "" && hasWord(parts[1], "pids"):
			return filepath.Join(v1, parts[2]), false, nil
		case v1 == "" && v2 != "" && parts[0] == "0" && parts[1] == "":
			if c, err := os.ReadFile(filepath.Join(v2, "cgroup.controllers")); err == nil && hasWord(strings.ReplaceAll(strings.TrimSpace(string(c)), " ", ","), "pids") {
				return filepath.Join(v2, parts[2]), true, nil
			}
		}
	}
	return "", false, fmt.Errorf("no cgroup hierarchy with the pids controller")
}

func hasWord(list, w string) bool {
	for _, x := range strings.Split(list, ",") {
		if x == w {
			return true
		}
	}
	return false
}

// maxHits is how many times a fork failed at pids.max.
func (c *pidsCgroup) maxHits() int64 {
	if c == nil || c.events == nil {
		return 0
	}
	var buf [256]byte
	n, err := c.events.ReadAt(buf[:], 0)
	if n == 0 && err != nil {
		return 0
	}
	for _, line := range strings.Split(string(buf[:n]), "\n") {
		if v, ok := strings.CutPrefix(line, "max "); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}

func (c *pidsCgroup) close() {
	if c == nil {
		return
	}
	c.procs.Close()
	if c.events != nil {
		c.events.Close()
	}
	os.Remove(c.dir) // fails while a process is left in it; the kernel frees it with the last
}
