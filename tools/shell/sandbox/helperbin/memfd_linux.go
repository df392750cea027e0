package helperbin

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// File is the embedded helper in a sealed memfd (made at the first call,
// kept for the process's life, about 1.7 MB of memory). It returns nil and
// no error where no helper is embedded (other architectures), and nil with
// an error saying why when the memfd cannot be made or sealed; the caller
// then starts its own binary (/proc/self/exe) as the helper, as before.
//
// Start it by passing it to the child as one of exec.Cmd's ExtraFiles, at
// descriptor K (3 for the first), and naming /proc/self/fd/K as the
// program (see Exec). Not by the parent's own descriptor number: the child
// moves descriptors about before it execs (its error pipe above the
// highest it was given, some of them up), and one could land on it; nor
// as /proc/PID/fd/N, which a child in a new user namespace may not follow.
// The descriptor closes on exec in this process, so nothing else inherits
// it.
func File() (*os.File, error) { return file() }

var file = sync.OnceValues(func() (*os.File, error) {
	if program == "" {
		return nil, nil
	}
	fd, err := memfd()
	if err != nil {
		return nil, fmt.Errorf("the sandbox helper's memfd: %w", err)
	}
	return os.NewFile(uintptr(fd), "agent-sandbox"), nil
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
	if err := fill(fd); err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// fill writes program to fd and seals it against every change: its
// contents, its size, its seals and (Linux 6.3 on, F_SEAL_EXEC) its
// execute bits.
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
	const seals = unix.F_SEAL_SEAL | unix.F_SEAL_SHRINK | unix.F_SEAL_GROW | unix.F_SEAL_WRITE
	_, err := unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, seals|unix.F_SEAL_EXEC)
	if errors.Is(err, unix.EINVAL) { // before Linux 6.3
		_, err = unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, seals)
	}
	return err
}
