//go:build !unix

package gitcmd

// lower does nothing where processes have no nice value.
func lower(pid, nice int) {}
