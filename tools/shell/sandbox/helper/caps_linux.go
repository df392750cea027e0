package helper

import (
	"os"
	"strconv"
	"syscall"
	"unsafe"
)

// Capability and securebits constants (<linux/capability.h>,
// <linux/securebits.h>, <linux/prctl.h>).
const (
	prCapbsetDrop        = 24
	prSetSecurebits      = 28
	prCapAmbient         = 47
	prCapAmbientClearAll = 4
	linuxCapabilityV3    = 0x20080522
	// noRoot keeps uid 0 from regaining capabilities at execve, and locks
	// that and the other bits.
	noRoot = 1<<0 | 1<<1 | 1<<2 | 1<<3 | 1<<6 | 1<<7
)

// dropCapabilities empties this thread's capability sets, bounding set
// included, and sets the securebits that keep an execve by uid 0 from
// regaining them, so the program has no capability even when it runs as
// root of its user namespace. Without CAP_SETPCAP (an unprivileged user
// outside a user namespace) there is nothing to drop but the sets.
func dropCapabilities() error {
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetSecurebits, noRoot, 0); e != 0 && e != syscall.EPERM {
		return wrap(e, "securebits")
	}
	last := 40
	if b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap"); err == nil {
		if n, err := strconv.Atoi(firstField(string(b))); err == nil {
			last = n
		}
	}
	for c := 0; c <= last; c++ {
		if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prCapbsetDrop, uintptr(c), 0); e != 0 && e != syscall.EPERM && e != syscall.EINVAL {
			return wrap(e, "dropping capability "+strconv.Itoa(c))
		}
	}
	syscall.RawSyscall6(syscall.SYS_PRCTL, prCapAmbient, prCapAmbientClearAll, 0, 0, 0, 0)
	hdr := struct {
		version uint32
		pid     int32
	}{linuxCapabilityV3, 0}
	var data [2]struct{ effective, permitted, inheritable uint32 }
	if _, _, e := syscall.RawSyscall(syscall.SYS_CAPSET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0); e != 0 {
		return wrap(e, "capset")
	}
	return nil
}

// mapIDs maps uid and gid to themselves in the helper's user namespace,
// which has no mapping yet: setgroups denied first (as an unprivileged
// mapping of the gid requires), then gid_map and uid_map. A process may
// map its own ids in a namespace its effective uid owns; opening setgroups
// takes CAP_SYS_ADMIN in the namespace, which the helper holds as an
// ambient capability.
func mapIDs(uid, gid int) error {
	for _, w := range [][2]string{
		{"/proc/self/setgroups", "deny"},
		{"/proc/self/gid_map", strconv.Itoa(gid) + " " + strconv.Itoa(gid) + " 1\n"},
		{"/proc/self/uid_map", strconv.Itoa(uid) + " " + strconv.Itoa(uid) + " 1\n"},
	} {
		fd, err := syscall.Open(w[0], syscall.O_WRONLY|syscall.O_CLOEXEC, 0)
		if err != nil {
			return wrap(err, "mapping the user namespace's ids: "+w[0])
		}
		_, err = syscall.Write(fd, []byte(w[1]))
		syscall.Close(fd)
		if err != nil {
			return wrap(err, "mapping the user namespace's ids: "+w[0])
		}
	}
	return nil
}
