package lsp

import (
	"io"
	"os"
	"runtime"
	"testing"
)

// What a server wrote and the connection has not read yet is no quiet:
// only a reader that waits for more, with nothing left in the pipe, has
// counted every publish.
func TestAFloodLeftInThePipeIsNoQuiet(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	wr := &watchedReader{f: r}
	if _, err := w.Write([]byte("publish")); err != nil {
		t.Fatal(err)
	}
	// The reader has not run (a loaded machine starved it).
	if ok, _ := wr.drained(); ok {
		t.Fatal("drained with a message in the pipe and no reader waiting")
	}
	if runtime.GOOS == "linux" {
		if n := unread(r); n != len("publish") {
			t.Errorf("unread = %d, want %d", n, len("publish"))
		}
	}
	read := make(chan error, 1)
	go func() {
		buf := make([]byte, len("publish"))
		if _, err := io.ReadFull(wr, buf); err != nil {
			read <- err
			return
		}
		_, err := wr.Read(buf) // waits for more, until the pipe closes
		read <- err
	}()
	for {
		ok, next := wr.drained()
		if ok {
			break
		}
		<-next // the reader waits for more
	}
	w.Close()
	if err := <-read; err != io.EOF {
		t.Errorf("the reader's last read: %v, want EOF", err)
	}
}
