package helper

import (
	"errors"
	"os"
	"strconv"
	"syscall"
	"unsafe"
)

// confine sets up the namespaces' contents: private mounts, read-only
// binds and the loopback interface.
func confine(o Options) error {
	if o.PrivateMounts {
		if err := syscall.Mount("none", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
			return wrap(err, "making mounts private")
		}
	}
	for _, p := range o.Writable {
		if err := syscall.Mount(p, p, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
			return wrap(err, "bind-mounting "+p)
		}
	}
	if o.ReadOnlyRest {
		if err := readOnlyRest(o.Writable); err != nil {
			return err
		}
	}
	if o.ProbeFD >= 0 {
		// As far as a probe gets: the namespaces work. What follows is
		// this command's own, and fails as any command's set-up does.
		failTo.WriteString(ProbeOK)
		failTo.Close()
		failTo = os.Stderr
	}
	for _, p := range o.Pinned {
		if err := syscall.Mount(p, p, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
			return wrap(err, "bind-mounting "+p)
		}
	}
	for _, p := range o.ReadOnly {
		if err := syscall.Mount(p, p, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
			return wrap(err, "bind-mounting "+p)
		}
		if err := remountReadOnly(p); err != nil {
			return err
		}
	}
	for _, p := range o.Hidden {
		if err := hide(p); err != nil {
			return err
		}
	}
	if o.TmpFD >= 0 && o.TmpAt != "" {
		if err := attachTmp(o.TmpFD, o.TmpAt); err != nil {
			return err
		}
	}
	if o.PrivateMounts {
		// The working directory was entered before the bind mounts: enter
		// it again by name, so that it is the writable mount now on top.
		if wd, err := os.Getwd(); err == nil {
			if err := syscall.Chdir(wd); err != nil {
				return wrap(err, "re-entering "+wd)
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
		return wrap(err, "listing mounts")
	}
	done := map[string]bool{}
	for _, line := range lines(string(raw)) {
		// id parent major:minor root mount-point options ...
		f := fields(line)
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
	return path == dir || dir == "/" || hasPrefix(path, dir+"/")
}

// unescapeMount decodes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if lastIndexByte(s, '\\') < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b = append(b, byte(n))
				i += 3
				continue
			}
		}
		b = append(b, s[i])
	}
	return string(b)
}

// remountReadOnly makes the mount at path read-only, keeping the flags the
// kernel locks for a less privileged namespace (nosuid, nodev, noexec, the
// atime flags).
func remountReadOnly(path string) error {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return wrap(err, "statfs "+path)
	}
	flags := uintptr(syscall.MS_REMOUNT | syscall.MS_BIND | syscall.MS_RDONLY)
	for _, f := range []struct{ st, ms uintptr }{
		{0x2, syscall.MS_NOSUID}, {0x4, syscall.MS_NODEV}, {0x8, syscall.MS_NOEXEC},
		{0x400, syscall.MS_NOATIME}, {0x800, syscall.MS_NODIRATIME}, {0x1000, syscall.MS_RELATIME},
		{0x2000, 0x100}, // ST_NOSYMFOLLOW, MS_NOSYMFOLLOW (Linux 5.10): a remount would drop it
	} {
		if uintptr(st.Flags)&f.st != 0 {
			flags |= f.ms
		}
	}
	if err := syscall.Mount("none", path, "", flags, ""); err != nil {
		return wrap(err, "making "+path+" read-only")
	}
	return nil
}

// loopbackUp sets the IFF_UP flag of "lo" with SIOCSIFFLAGS, so that
// servers a command starts on 127.0.0.1 can be reached from inside the
// sandbox's network namespace (and nothing else can).
func loopbackUp() error {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return wrap(err, "loopback")
	}
	defer syscall.Close(fd)
	var req struct {
		name  [syscall.IFNAMSIZ]byte
		flags uint16
		_     [22]byte
	}
	copy(req.name[:], "lo")
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.SIOCGIFFLAGS, uintptr(unsafe.Pointer(&req))); e != 0 {
		return wrap(e, "loopback flags")
	}
	if req.flags&syscall.IFF_UP != 0 {
		return nil // up already: the session's shared namespace
	}
	req.flags |= syscall.IFF_UP | syscall.IFF_RUNNING
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.SIOCSIFFLAGS, uintptr(unsafe.Pointer(&req))); e != 0 {
		return wrap(e, "loopback up")
	}
	return nil
}

// hide makes path unreadable: an empty read-only tmpfs of mode 000 over a
// directory (nothing can be listed, opened or created in it by a program
// without capabilities), /dev/null read-only over a file (it reads empty).
// The mount follows a symlink at path, so the place it leads to is hidden.
// A path gone since the agent looked is skipped.
func hide(path string) error {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return nil
	}
	if st.Mode&syscall.S_IFMT == syscall.S_IFDIR {
		flags := uintptr(syscall.MS_RDONLY | syscall.MS_NOSUID | syscall.MS_NODEV | syscall.MS_NOEXEC)
		if err := syscall.Mount("tmpfs", path, "tmpfs", flags, "mode=000,size=4k,nr_inodes=2"); err != nil {
			return wrap(err, "hiding "+path)
		}
		return nil
	}
	if err := syscall.Mount("/dev/null", path, "", syscall.MS_BIND, ""); err != nil {
		return wrap(err, "hiding "+path)
	}
	return remountReadOnly(path)
}
