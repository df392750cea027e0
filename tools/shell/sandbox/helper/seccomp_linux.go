package helper

import (
	"errors"
	"runtime"
	"syscall"
	"unsafe"
)

// Seccomp constants (<linux/seccomp.h>, <linux/filter.h>, <linux/audit.h>).
const (
	prSetSeccomp      = 22
	seccompModeFilter = 2
	retAllow          = 0x7fff0000
	retErrno          = 0x00050000
	bpfLdWAbs         = 0x20 // BPF_LD | BPF_W | BPF_ABS
	bpfJeqK           = 0x15 // BPF_JMP | BPF_JEQ | BPF_K
	bpfJgeK           = 0x35 // BPF_JMP | BPF_JGE | BPF_K
	bpfRetK           = 0x06 // BPF_RET | BPF_K
	sysIoUringSetup   = 425
	x32SyscallBit     = 0x40000000
)

type sockFilter struct {
	code uint16
	jt   uint8
	jf   uint8
	k    uint32
}

type sockFprog struct {
	len    uint16
	filter *sockFilter
}

// auditArch is this architecture's AUDIT_ARCH_* value; 0 where the filter
// is not written for it.
func auditArch() uint32 {
	switch runtime.GOARCH {
	case "amd64":
		return 0xc000003e
	case "arm64":
		return 0xc00000b7
	}
	return 0
}

// denyUnixSockets installs a seccomp filter on this thread (inherited by
// the program) that fails socket(AF_UNIX, ...) with EACCES and
// io_uring_setup with EPERM (io_uring can create sockets without the
// socket system call). System calls of another architecture (32-bit
// programs, x32) fail with EPERM, since their numbers differ. Needs
// no_new_privs.
func denyUnixSockets() error {
	arch := auditArch()
	if arch == 0 {
		return errors.New("unix sockets cannot be blocked on " + runtime.GOARCH)
	}
	filter := []sockFilter{
		{bpfLdWAbs, 0, 0, 4},  // arch
		{bpfJeqK, 1, 0, arch}, // ours: go on
		{bpfRetK, 0, 0, retErrno | uint32(syscall.EPERM)},
		{bpfLdWAbs, 0, 0, 0},           // nr
		{bpfJgeK, 0, 1, x32SyscallBit}, // x32
		{bpfRetK, 0, 0, retErrno | uint32(syscall.EPERM)},
		{bpfJeqK, 0, 1, sysIoUringSetup},
		{bpfRetK, 0, 0, retErrno | uint32(syscall.EPERM)},
		{bpfJeqK, 0, 3, uint32(syscall.SYS_SOCKET)},
		{bpfLdWAbs, 0, 0, 16}, // args[0], low half (little-endian)
		{bpfJeqK, 0, 1, syscall.AF_UNIX},
		{bpfRetK, 0, 0, retErrno | uint32(syscall.EACCES)},
		{bpfRetK, 0, 0, retAllow},
	}
	prog := sockFprog{len: uint16(len(filter)), filter: &filter[0]}
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetSeccomp, seccompModeFilter, uintptr(unsafe.Pointer(&prog))); e != 0 {
		return wrap(e, "seccomp")
	}
	runtime.KeepAlive(filter)
	return nil
}
