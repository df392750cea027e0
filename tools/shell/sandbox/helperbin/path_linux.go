package helperbin

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Path is the path to start the embedded helper by: /proc/self/fd/N, N a
// sealed memfd holding it (made at the first call, kept for the process's
// life, about 1.7 MB of memory). It returns "" and no error where no
// helper is embedded (other architectures), and "" with an error saying
// why when the memfd cannot be made or sealed; the caller then starts its
// own binary (/proc/self/exe) as the helper, as before.
//
// N is at least 100 and the descriptor closes on exec: exec.Cmd's
// ExtraFiles, moved to 3, 4... in the child before it execs the helper,
// never land on it, and no program the helper starts inherits it.
func Path() (string, error) { return path() }

var path = sync.OnceValues(func() (string, error) {
	if program == "" {
		return "", nil
	}
	fd, err := memfd()
	if err != nil {
		return "", fmt.Errorf("the sandbox helper's memfd: %w", err)
	}
	return fmt.Sprintf("/proc/self/fd/%d", fd), nil
})

// memfd makes the sealed memfd that holds program and returns its
// descriptor.
func memfd() (int, error) {
	// MFD_EXEC: with vm.memfd_noexec = 1 (Linux 6.3 on) a memfd is not
	// executable without it; kernels before 6.3 refuse the flag.
	const flags = unix.MFD_CLOEXEC | unix.MFD_ALLOW_SEALING
	fd, err := unix.MemfdCreate("agent-sandbox", flags|unix.MFD_EXEC)
	if errors.Is(err, unix.EINVAL) {
		fd, err = unix.MemfdCreate("agent-sandbox", flags)
	}
	if err != nil {
		return -1, err
	}
	high, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 100)
	unix.Close(fd)
	if err != nil {
		return -1, err
	}
	if err := fill(high); err != nil {
		unix.Close(high)
		return -1, err
	}
	return high, nil
}

// fill writes program to fd and seals it against every change.
func fill(fd int) error {
	for b := unsafe.Slice(unsafe.StringData(program), len(program)); len(b) > 0; { // read only: no copy
		n, err := unix.Write(fd, b)
		if err != nil {
			if err == unix.EINTR {
				continue
			}
			return err
		}
		b = b[n:]
	}
	_, err := unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, unix.F_SEAL_SEAL|unix.F_SEAL_SHRINK|unix.F_SEAL_GROW|unix.F_SEAL_WRITE)
	return err
}
