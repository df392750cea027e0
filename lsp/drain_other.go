//go:build !linux

package lsp

import "os"

// pipesWatched: only Linux is asked what a pipe holds (x/sys/unix has no
// FIONREAD for the others); drained says yes at every moment there.
const pipesWatched = false

func (w *watchedReader) Read(p []byte) (int, error) { return w.f.Read(p) }

// unread is -1 here: the system cannot say what a pipe holds.
func unread(*os.File) int { return -1 }
