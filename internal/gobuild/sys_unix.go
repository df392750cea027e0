//go:build linux || darwin

package gobuild

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// errNoLock says that this system offers no file lock to share builds.
var errNoLock = errors.New("no file lock here")

// lock takes an exclusive lock on the file path (created if missing),
// waiting until it is free or ctx ends, and returns the function that
// releases it. The lock goes with the process, too.
func lock(ctx context.Context, path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	fd := int(f.Fd())
	release := func() { f.Close() } // closing the file drops its lock
	err = syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB)
	if err == nil {
		return release, nil
	}
	if !errors.Is(err, syscall.EWOULDBLOCK) {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	got := make(chan error, 1)
	go func() {
		for {
			err := syscall.Flock(fd, syscall.LOCK_EX)
			if !errors.Is(err, syscall.EINTR) {
				got <- err
				return
			}
		}
	}()
	select {
	case err := <-got:
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		return release, nil
	case <-ctx.Done():
		// flock(2) cannot be interrupted: the file is closed, and the
		// lock dropped, once it returns.
		go func() { <-got; f.Close() }()
		return nil, fmt.Errorf("waiting for the lock %s: %w", path, ctx.Err())
	}
}

// ownGroup makes cmd lead a process group of its own, which interrupt
// signals whole.
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// interrupt asks the process group that cmd leads to stop, as Ctrl+C at a
// terminal does: the go command and the compiler or linker it runs.
func interrupt(cmd *exec.Cmd) error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGINT) }
