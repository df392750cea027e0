package helper

import (
	"os"
	"strconv"
	"syscall"
	"unsafe"
)

// System calls of the new mount API (Linux 5.2; cloning a detached mount
// across namespaces, Linux 6.15), the same number on every architecture.
const (
	sysOpenTree  = 428
	sysMoveMount = 429
	sysFsopen    = 430
	sysFsconfig  = 431
	sysFsmount   = 432

	fsconfigSetString   = 1
	fsconfigCmdCreate   = 6
	openTreeClone       = 1
	atEmptyPath         = 0x1000
	moveMountFEmptyPath = 0x4
	fsCloexec           = 1       // FSOPEN_CLOEXEC, FSMOUNT_CLOEXEC
	openTreeCloexec     = 0x80000 // O_CLOEXEC
	rlimitNproc         = 6

	sysLandlockAddRule      = 445
	landlockRulePathBeneath = 1
)

// makeTmp creates a tmpfs of size bytes as a detached mount (fsopen,
// fsmount), sends its descriptor over the unix socket at descriptor sock
// and returns it when keep is set (else -1, closed). The helper runs in a
// user and mount namespace of its own, which the tmpfs belongs to; the
// agent keeps the descriptor, and with it the tmpfs, for the session, and
// each command's helper mounts a clone of it (attachTmp). With rights, it
// first grants them beneath the tmpfs in the Landlock ruleset at ruleset
// (Options.TmpRights).
func makeTmp(size int64, sock int, keep bool, ruleset int, rights uint64) (int, error) {
	fs, err := fsopen("tmpfs")
	if err != nil {
		return -1, err
	}
	defer syscall.Close(fs)
	for _, kv := range [][2]string{{"size", strconv.FormatInt(size, 10)}, {"mode", "0700"}} {
		if err := fsconfigString(fs, kv[0], kv[1]); err != nil {
			return -1, err
		}
	}
	if _, _, e := syscall.Syscall6(sysFsconfig, uintptr(fs), fsconfigCmdCreate, 0, 0, 0, 0); e != 0 {
		return -1, wrap(e, "creating the tmpfs")
	}
	m, _, e := syscall.Syscall(sysFsmount, uintptr(fs), fsCloexec, 0)
	if e != 0 {
		return -1, wrap(e, "fsmount")
	}
	if rights != 0 {
		// struct landlock_path_beneath_attr, which is packed: 12 bytes.
		var rule [12]byte
		*(*uint64)(unsafe.Pointer(&rule[0])) = rights
		*(*int32)(unsafe.Pointer(&rule[8])) = int32(m)
		if _, _, e := syscall.Syscall6(sysLandlockAddRule, uintptr(ruleset), landlockRulePathBeneath, uintptr(unsafe.Pointer(&rule[0])), 0, 0, 0); e != 0 {
			syscall.Close(int(m))
			return -1, wrap(e, "landlock_add_rule for the tmpfs")
		}
	}
	if err := syscall.Sendmsg(sock, []byte{0}, syscall.UnixRights(int(m)), nil, 0); err != nil {
		syscall.Close(int(m))
		return -1, wrap(err, "sending the tmpfs")
	}
	if !keep {
		syscall.Close(int(m))
		return -1, nil
	}
	return int(m), nil
}

func fsopen(name string) (int, error) {
	p, err := syscall.BytePtrFromString(name)
	if err != nil {
		return -1, err
	}
	fd, _, e := syscall.Syscall(sysFsopen, uintptr(unsafe.Pointer(p)), fsCloexec, 0)
	if e != 0 {
		return -1, wrap(e, "fsopen "+name)
	}
	return int(fd), nil
}

func fsconfigString(fs int, key, val string) error {
	k, err := syscall.BytePtrFromString(key)
	if err != nil {
		return err
	}
	v, err := syscall.BytePtrFromString(val)
	if err != nil {
		return err
	}
	if _, _, e := syscall.Syscall6(sysFsconfig, uintptr(fs), fsconfigSetString, uintptr(unsafe.Pointer(k)), uintptr(unsafe.Pointer(v)), 0, 0); e != 0 {
		return wrap(e, "tmpfs option "+key+"="+val)
	}
	return nil
}

// attachTmp mounts a clone of the detached tmpfs at descriptor fd on dir.
func attachTmp(fd int, dir string) error {
	empty, _ := syscall.BytePtrFromString("")
	tree, _, e := syscall.Syscall(sysOpenTree, uintptr(fd), uintptr(unsafe.Pointer(empty)), openTreeClone|atEmptyPath|openTreeCloexec)
	if e != 0 {
		return wrap(e, "cloning the session's temporary directory")
	}
	defer syscall.Close(int(tree))
	to, err := syscall.BytePtrFromString(dir)
	if err != nil {
		return err
	}
	atFDCWD := -100
	if _, _, e := syscall.Syscall6(sysMoveMount, tree, uintptr(unsafe.Pointer(empty)), uintptr(atFDCWD), uintptr(unsafe.Pointer(to)), moveMountFEmptyPath, 0); e != 0 {
		return wrap(e, "mounting the session's temporary directory on "+dir)
	}
	syscall.Close(fd)
	return nil
}

// joinCgroup moves the helper into the cgroup whose cgroup.procs is open at
// descriptor fd (opened by the agent), or the calling thread alone when it
// is the cgroup's tasks file (Options.CgroupThread), so that the command
// and everything it starts count against its pids.max.
func joinCgroup(fd int) error {
	f := os.NewFile(uintptr(fd), "cgroup.procs")
	defer f.Close()
	if _, err := f.WriteString("0\n"); err != nil {
		return wrap(err, "joining the process-bound cgroup")
	}
	return nil
}

// limitProcesses sets RLIMIT_NPROC: in a user namespace of its own the
// kernel counts only the namespace's processes against it (Linux 5.14),
// except for root, whom it never limits.
func limitProcesses(n int) error {
	lim := syscall.Rlimit{Cur: uint64(n), Max: uint64(n)}
	if err := syscall.Setrlimit(rlimitNproc, &lim); err != nil {
		return wrap(err, "setting the process bound")
	}
	return nil
}
