//go:build unix

package gitcmd

import "syscall"

// lower sets the nice value of process pid; a failure (the process ended
// already, a system that refuses) leaves it as it was.
func lower(pid, nice int) { syscall.Setpriority(syscall.PRIO_PROCESS, pid, nice) }
