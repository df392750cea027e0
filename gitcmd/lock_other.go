//go:build !unix

package gitcmd

import (
	"errors"
	"os"
)

// lockFile has no advisory lock here: only the process's own lock holds.
func lockFile(*os.File) error { return errors.New("no advisory locks") }

func unlockFile(*os.File) {}
