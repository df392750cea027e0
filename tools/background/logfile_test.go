package background

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

func TestOutputPastTheCapKeepsTheFileAtTheCapWithTheNewestOutput(t *testing.T) {
	const limit = 4096
	path := filepath.Join(t.TempDir(), "out.log")
	l, err := createLog(path, limit)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var all bytes.Buffer
	for i := range 2000 {
		line := fmt.Sprintf("line %05d\n", i)
		all.WriteString(line)
		l.Write([]byte(line))
		if fi, err := os.Stat(path); err != nil || fi.Size() > limit {
			t.Fatalf("after line %d the file holds %d bytes (err %v), more than the cap %d", i, fi.Size(), err, limit)
		}
	}
	held, _ := os.ReadFile(path)
	if !bytes.HasSuffix(all.Bytes(), held) || !bytes.HasSuffix(held, []byte("line 01999\n")) {
		t.Fatalf("the file does not hold the newest output: ends %q", held[max(len(held)-40, 0):])
	}
	if len(held) < limit/2 {
		t.Errorf("the file holds only %d bytes of a %d-byte cap", len(held), limit)
	}
	c, err := l.ReadFrom(0, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if c.dropped != int64(all.Len()-len(held)) || !bytes.Equal(c.data, held) || c.next != int64(all.Len()) {
		t.Errorf("reading from the start: dropped %d (want %d), %d bytes, next %d", c.dropped, all.Len()-len(held), len(c.data), c.next)
	}
}

func TestAWriteLargerThanTheCapKeepsItsNewestPart(t *testing.T) {
	l, err := createLog(filepath.Join(t.TempDir(), "out.log"), 100)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.Write([]byte("old\n"))
	big := bytes.Repeat([]byte("0123456789"), 50)
	l.Write(big)
	c, _ := l.ReadFrom(0, 1000)
	if !bytes.Equal(c.data, big[len(big)-100:]) || c.dropped != 404 {
		t.Errorf("got %q dropped %d", c.data, c.dropped)
	}
}

func TestAReadReturnsOnlyTheNewestBytesUpToItsLimit(t *testing.T) {
	l, err := createLog(filepath.Join(t.TempDir(), "out.log"), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.Write([]byte("aaaaabbbbb"))
	c, _ := l.ReadFrom(0, 5)
	if string(c.data) != "bbbbb" || c.skipped != 5 || c.next != 10 {
		t.Errorf("got %q skipped %d next %d", c.data, c.skipped, c.next)
	}
	l.Write([]byte("cc"))
	if c, _ = l.ReadFrom(c.next, 5); string(c.data) != "cc" || c.skipped != 0 {
		t.Errorf("the next read got %q skipped %d", c.data, c.skipped)
	}
}

// Once the output file cannot be written (a full disk), a read must not
// hand back the old output as if it were the new: the new output is
// lost, and the read says so.
func TestAfterTheOutputFileFailsAReadDoesNotReturnOldOutputAsNew(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.log")
	l, err := createLog(path, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.Write([]byte("old line\n"))
	c, _ := l.ReadFrom(0, 1<<20)
	// The disk fills up: the file still reads, writes fail.
	ro, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	l.f.Close()
	l.f = ro
	l.Write([]byte("new line\n"))
	got, err := l.ReadFrom(c.next, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if got.lostBy == nil {
		t.Fatal("the read after the failed write does not say why output was lost")
	}
	if bytes.Contains(got.data, []byte("old line")) {
		t.Errorf("the read after the failure returns the output read before it as new: %q (dropped %d)", got.data, got.dropped)
	}
}
