package background

import (
	"fmt"
	"io"
	"os"
	"sync"
)

// logFile is a process's output on disk, capped: it never holds more than
// limit bytes; when a write would pass the cap, the oldest output is
// dropped first (the newest three quarters of the cap are kept, so that
// the copy is amortised over a quarter of the cap of new output). Offsets
// count every byte ever written, so a reader that kept its offset learns
// how much it missed. It is safe for concurrent use.
type logFile struct {
	mu    sync.Mutex
	f     *os.File
	limit int64
	size  int64 // bytes in the file
	total int64 // bytes ever written
	end   int64 // the file holds [end-size, end): end is total until a write fails
	err   error // the first write error; output after it is lost
}

// createLog creates the file at path (mode 0600), which must not exist.
func createLog(path string, limit int64) (*logFile, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	return &logFile{f: f, limit: max(limit, 1)}, nil
}

// Write appends p, dropping the oldest output past the cap. It never
// fails, so the process never sees a broken pipe because of the log: a
// disk error is kept for Err and the output after it is counted but lost.
func (l *logFile) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(p)
	l.total += int64(n)
	if l.err != nil || l.f == nil {
		return n, nil
	}
	if int64(len(p)) >= l.limit { // only the newest limit bytes of p survive
		p = p[int64(len(p))-l.limit:]
		l.size = 0
		if err := l.f.Truncate(0); err != nil {
			l.err = err
			return n, nil
		}
	} else if l.size+int64(len(p)) > l.limit {
		keep := max(l.limit-int64(len(p))-l.limit/4, 0)
		if err := l.shift(keep); err != nil {
			l.err, l.size = err, 0 // the file may be half moved: none of it is read
			return n, nil
		}
	}
	if _, err := l.f.WriteAt(p, l.size); err != nil {
		l.err = err
		return n, nil
	}
	l.size += int64(len(p))
	l.end = l.total
	return n, nil
}

// shift keeps only the newest keep bytes of the file, moved to its start.
func (l *logFile) shift(keep int64) error {
	buf := make([]byte, keep)
	if _, err := l.f.ReadAt(buf, l.size-keep); err != nil && err != io.EOF {
		return err
	}
	if _, err := l.f.WriteAt(buf, 0); err != nil {
		return err
	}
	if err := l.f.Truncate(keep); err != nil {
		return err
	}
	l.size = keep
	return nil
}

// chunk is what ReadFrom found.
type chunk struct {
	data []byte
	// dropped counts bytes after the offset asked for that the cap
	// dropped before they were read; skipped those left out because
	// more than the read's limit was new; lost those written after the
	// file failed (lostBy says why).
	dropped, skipped, lost int64
	lostBy                 error
	// next is the offset to read from next time (everything written so
	// far).
	next int64
}

// ReadFrom returns the output written since offset, at most limit bytes:
// the newest ones when there is more.
func (l *logFile) ReadFrom(offset int64, limit int) (chunk, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := chunk{next: l.total}
	if l.err != nil {
		c.lost, c.lostBy = l.total-max(offset, l.end), l.err
	}
	start := l.end - l.size
	if offset < start {
		c.dropped = start - offset
		offset = start
	}
	n := l.end - offset
	if n > int64(limit) {
		c.skipped = n - int64(limit)
		offset += c.skipped
		n = int64(limit)
	}
	if n <= 0 || l.f == nil {
		return c, nil
	}
	c.data = make([]byte, n)
	if _, err := l.f.ReadAt(c.data, offset-start); err != nil && err != io.EOF {
		return chunk{next: offset}, fmt.Errorf("reading the output: %w", err)
	}
	return c, nil
}

// Total is the number of bytes ever written.
func (l *logFile) Total() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.total
}

// Close closes the file; later writes are counted and dropped.
func (l *logFile) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
