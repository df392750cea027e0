//go:build !linux

package lsp

import "os"

// unread is -1 here: only Linux is asked what a pipe holds (x/sys/unix
// has no FIONREAD for the others); drained goes by the reader's wait.
func unread(*os.File) int { return -1 }
