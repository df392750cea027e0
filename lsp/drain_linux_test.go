package lsp

import (
	"bufio"
	"io"
	"os"
	"sync/atomic"
	"testing"
)

// watchedPipe is a pipe whose reading end is watched, and its writing
// end; both are closed when the test ends.
func watchedPipe(t *testing.T) (*watchedReader, *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return &watchedReader{f: r}, w
}

// caughtUp's wait: until drained says all was read and handled.
func waitDrained(w *watchedReader) {
	for {
		ok, next := w.drained()
		if ok {
			return
		}
		<-next
	}
}

// What a server wrote and the connection has not read yet is no quiet:
// only a reader whose last read found the pipe empty, with nothing in it
// since, has counted every publish.
func TestAFloodLeftInThePipeIsNoQuiet(t *testing.T) {
	wr, w := watchedPipe(t)
	if _, err := w.Write([]byte("publish")); err != nil {
		t.Fatal(err)
	}
	// The reader has not run (a loaded machine starved it).
	if ok, _ := wr.drained(); ok {
		t.Fatal("drained with a message in the pipe and no read")
	}
	if n := unread(wr.f); n != len("publish") {
		t.Errorf("unread = %d, want %d", n, len("publish"))
	}
	read := make(chan error, 1)
	go func() {
		buf := make([]byte, len("publish"))
		if _, err := io.ReadFull(wr, buf); err != nil {
			read <- err
			return
		}
		_, err := wr.Read(buf) // finds the pipe empty, waits for more
		read <- err
	}()
	waitDrained(wr)
	w.Close()
	if err := <-read; err != io.EOF {
		t.Errorf("the reader's last read: %v, want EOF", err)
	}
	if ok, _ := wr.drained(); !ok {
		t.Error("not drained at the pipe's end")
	}
}

// A read that took bytes counts as drained only once they were handled and
// the next read found the pipe empty: never between the read's return and
// the handling (the review's race), message by message and over a flood
// read through a buffer, as jsonrpc2 reads.
func TestDrainedOnlyOnceWhatWasReadIsHandled(t *testing.T) {
	wr, w := watchedPipe(t)
	var early atomic.Int64 // reads whose bytes counted as drained before they were handled
	wr.tookBytes = func() {
		if ok, _ := wr.drained(); ok {
			early.Add(1)
		}
	}
	var handled atomic.Int64
	go func() {
		br := bufio.NewReaderSize(wr, 4096)
		for {
			if _, err := br.ReadByte(); err != nil {
				return
			}
			handled.Add(1)
		}
	}()
	var sent int64
	for i := range 300 {
		n := 1
		if i%10 == 0 {
			n = 40000 // a flood, more than the buffer reads at once
		}
		if _, err := w.Write(make([]byte, n)); err != nil {
			t.Fatal(err)
		}
		sent += int64(n)
		waitDrained(wr)
		if h := handled.Load(); h != sent {
			t.Fatalf("write %d: drained with %d of %d bytes handled", i, h, sent)
		}
	}
	if n := early.Load(); n > 0 {
		t.Errorf("%d reads counted as drained as they returned bytes, before those were handled", n)
	}
}
