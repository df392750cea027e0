package lsp

import (
	"os"
	"sync"
)

// watchedReader is a server's standard output as the connection reads it,
// watched for whether all the server wrote has been read and handled: the
// connection reads and handles one message after another on one goroutine
// (jsonrpc2 calls the handler before it reads on), so while it waits in
// Read for more and the pipe holds nothing, every publish the server wrote
// has been counted. A reader that a loaded machine starves (the race
// detector, a whole test suite beside it) leaves a flood of publishes in
// the pipe: that is no quiet.
type watchedReader struct {
	f *os.File

	mu      sync.Mutex
	waiting bool          // in Read
	entered chan struct{} // closed at the next entry into Read; nil until drained asks
}

func (w *watchedReader) Read(p []byte) (int, error) {
	w.mu.Lock()
	w.waiting = true
	if w.entered != nil {
		close(w.entered)
		w.entered = nil
	}
	w.mu.Unlock()
	n, err := w.f.Read(p)
	w.mu.Lock()
	w.waiting = false
	w.mu.Unlock()
	return n, err
}

func (w *watchedReader) Close() error { return w.f.Close() }

// drained reports whether everything the server wrote so far was read and
// handled: the reader waits for more and the pipe holds no bytes (where
// the system cannot say how many it holds, the wait alone tells). When it
// was not, next is closed when the reader next waits for more.
func (w *watchedReader) drained() (ok bool, next <-chan struct{}) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.waiting && unread(w.f) <= 0 {
		return true, nil
	}
	if w.entered == nil {
		w.entered = make(chan struct{})
	}
	return false, w.entered
}
