package scripted

import (
	"context"
	"errors"
	"sync"
)

// Log records the requests a scripted server received, in arrival order,
// and lets a test wait for them; both scripted servers (this package's and
// internal/scriptedanthropic) keep one. It is safe for concurrent use; make
// one with NewLog.
type Log[R any] struct {
	mu       sync.Mutex
	requests []R
	count    int           // requests received, also those not kept
	arrived  chan struct{} // closed and replaced when a request arrives

	closeOnce sync.Once
	done      chan struct{}
}

// NewLog returns an empty log.
func NewLog[R any]() *Log[R] {
	return &Log[R]{arrived: make(chan struct{}), done: make(chan struct{})}
}

// Record counts a request and keeps it unless keep is false.
func (l *Log[R]) Record(r R, keep bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if keep {
		l.requests = append(l.requests, r)
	}
	l.count++
	close(l.arrived)
	l.arrived = make(chan struct{})
}

// WaitRequests blocks until at least n requests arrived, ctx is done (its
// error is returned) or the log is closed. Tests use it to act once a client
// is known to be in a request, without sleeping.
func (l *Log[R]) WaitRequests(ctx context.Context, n int) error {
	for {
		l.mu.Lock()
		count, arrived := l.count, l.arrived
		l.mu.Unlock()
		if count >= n {
			return nil
		}
		select {
		case <-arrived:
		case <-ctx.Done():
			return ctx.Err()
		case <-l.done:
			return errors.New("scripted: server closed")
		}
	}
}

// Requests returns a copy of the requests kept so far, in order.
func (l *Log[R]) Requests() []R {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]R(nil), l.requests...)
}

// Close ends every stream that waits on Done; it is idempotent.
func (l *Log[R]) Close() { l.closeOnce.Do(func() { close(l.done) }) }

// Done is closed by Close.
func (l *Log[R]) Done() <-chan struct{} { return l.done }
