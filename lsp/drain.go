package lsp

import (
	"os"
	"sync"
)

// watchedReader is a server's standard output as the connection reads it,
// watched for whether all the server wrote has been read and handled: the
// connection reads and handles one message after another on one goroutine
// (jsonrpc2 calls the handler before it reads on), so once a read of the
// pipe finds it empty (the reader is about to wait for more) and the pipe
// still holds nothing, every publish the server wrote has been counted. A
// reader that a loaded machine starves (the race detector, a whole test
// suite beside it) leaves a flood of publishes in the pipe: that is no
// quiet. Where the system cannot say what a pipe holds (all but Linux:
// drain_other.go), every moment counts as drained, as before.
type watchedReader struct {
	f *os.File

	mu sync.Mutex
	// waiting: the last read found the pipe empty (or at its end), and no
	// read began since.
	waiting bool
	// waits is closed when a read next finds the pipe empty; nil until
	// drained asks.
	waits chan struct{}
	// tookBytes, when a test sets it, is called as a read returns bytes,
	// before they are handled.
	tookBytes func()
}

func (w *watchedReader) Close() error { return w.f.Close() }

// setWaiting records whether the reader is about to wait for more: true
// when a read found the pipe empty or at its end, false as a read begins.
func (w *watchedReader) setWaiting(waiting bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.waiting = waiting
	if waiting && w.waits != nil {
		close(w.waits)
		w.waits = nil
	}
}

// drained reports whether everything the server wrote so far was read and
// handled: the reader's last read found the pipe empty, and it still holds
// no bytes. When it was not, next is closed when a read next finds the
// pipe empty.
func (w *watchedReader) drained() (ok bool, next <-chan struct{}) {
	if !pipesWatched {
		return true, nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.waiting && unread(w.f) <= 0 {
		return true, nil
	}
	if w.waits == nil {
		w.waits = make(chan struct{})
	}
	return false, w.waits
}
