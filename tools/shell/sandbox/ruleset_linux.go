//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// Access rights by the Landlock ABI that introduced them
// (https://docs.kernel.org/userspace-api/landlock.html).
const (
	fsRead    = ll.AccessFSExecute | ll.AccessFSReadFile | ll.AccessFSReadDir
	fsWriteV1 = ll.AccessFSWriteFile | ll.AccessFSRemoveDir | ll.AccessFSRemoveFile | ll.AccessFSMakeChar |
		ll.AccessFSMakeDir | ll.AccessFSMakeReg | ll.AccessFSMakeSock | ll.AccessFSMakeFifo |
		ll.AccessFSMakeBlock | ll.AccessFSMakeSym
)

// rights are the access rights a ruleset handles for an ABI version: all
// that the version knows, so that everything not granted is denied.
type rights struct {
	fs, net, scoped uint64
	write, device   uint64 // granted on writable roots and device files
	read            uint64 // granted on /
}

func rightsFor(abi int, network, netns bool) rights {
	r := rights{read: fsRead, write: fsRead | fsWriteV1, device: ll.AccessFSReadFile | ll.AccessFSWriteFile}
	if abi >= 2 {
		r.write |= ll.AccessFSRefer
	}
	if abi >= 3 {
		r.write |= ll.AccessFSTruncate
		r.device |= ll.AccessFSTruncate
	}
	if abi >= 5 {
		r.read |= ll.AccessFSIoctlDev // terminal ioctls on devices; writes stay denied
		r.write |= ll.AccessFSIoctlDev
		r.device |= ll.AccessFSIoctlDev
	}
	r.fs = r.write
	if abi >= 4 && !network && !netns {
		r.net = ll.AccessNetBindTCP | ll.AccessNetConnectTCP // handled, none granted
	}
	if abi >= 6 {
		r.scoped = ll.ScopeAbstractUnixSocket | ll.ScopeSignal
	}
	return r
}

// buildRuleset makes the Landlock ruleset of the policy for commands with
// namespaces (ns) or without: read and execute everywhere; write in the
// writable roots (none in ReadOnly) and to the device files; TCP denied
// when the network is off and no network namespace keeps it off; signals
// and abstract unix sockets scoped to the sandbox. The returned file is
// passed to every helper, which enforces it on itself with
// landlock_restrict_self(2).
func (l *linux) buildRuleset(ns bool) (*os.File, error) {
	r := rightsFor(l.abi, l.p.Network, ns)
	attr := ll.RulesetAttr{HandledAccessFS: r.fs, HandledAccessNet: r.net, Scoped: r.scoped}
	fd, err := ll.LandlockCreateRuleset(&attr, 0)
	if err != nil {
		return nil, fmt.Errorf("landlock_create_ruleset: %w", err)
	}
	f := os.NewFile(uintptr(fd), "landlock-ruleset")
	syscall.CloseOnExec(fd) // passed to helpers through ExtraFiles only
	if err := addPath(fd, "/", r.read); err != nil {
		f.Close()
		return nil, err
	}
	for _, d := range l.p.writable() {
		if err := addPath(fd, d, r.write); err != nil && !errors.Is(err, os.ErrNotExist) {
			f.Close()
			return nil, err
		}
	}
	if l.tmp != nil {
		if err := addTmpRule(fd, l.tmp, r.write); err != nil {
			f.Close()
			return nil, err
		}
	}
	for _, d := range devices {
		if err := addPath(fd, d, r.device); err != nil && !errors.Is(err, os.ErrNotExist) && !errors.Is(err, syscall.ENXIO) {
			f.Close()
			return nil, err
		}
	}
	return f, nil
}

// addTmpRule grants access beneath the session's tmpfs, tmp (a detached
// mount), which is mounted on the temporary directory in each command's
// namespace: its own inodes need their own rule.
func addTmpRule(rulesetFD int, tmp *os.File, access uint64) error {
	attr := ll.PathBeneathAttr{AllowedAccess: access, ParentFd: int(tmp.Fd())}
	if err := ll.LandlockAddPathBeneathRule(rulesetFD, &attr, 0); err != nil {
		return fmt.Errorf("sandbox rule for the temporary directory: landlock_add_rule: %w", err)
	}
	return nil
}

// addPath grants access beneath path (a directory) or to path (a file; a
// file takes only the rights that apply to files).
func addPath(rulesetFD int, path string, access uint64) error {
	fd, err := syscall.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("sandbox rule for %s: %w", path, &os.PathError{Op: "open", Path: path, Err: err})
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return fmt.Errorf("sandbox rule for %s: %w", path, err)
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
		access &= ll.AccessFSExecute | ll.AccessFSReadFile | ll.AccessFSWriteFile | ll.AccessFSTruncate | ll.AccessFSIoctlDev
	}
	if err := ll.LandlockAddPathBeneathRule(rulesetFD, &ll.PathBeneathAttr{AllowedAccess: access, ParentFd: fd}, 0); err != nil {
		return fmt.Errorf("sandbox rule for %s: landlock_add_rule: %w", path, err)
	}
	return nil
}
