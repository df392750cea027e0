//go:build unix

package checkpoint

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A FIFO or a socket made in a watched tree is left out, as a full read
// leaves it out (git cannot store one); the rest of the checkpoint is
// taken.
func TestSpecialFilesAreLeftOut(t *testing.T) {
	dir := repo(t)
	var l net.Listener
	defer func() {
		if l != nil {
			l.Close()
		}
	}()
	takeAfter(t, dir, Options{Watch: true},
		func() {
			if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
				t.Skip("no FIFOs here:", err)
			}
			write(t, dir, "new.txt", "new\n")
		},
		func() {
			var err error
			if l, err = net.Listen("unix", filepath.Join(dir, "sock")); err != nil {
				t.Skip("no sockets here:", err)
			}
			write(t, dir, "a.txt", "edited\n")
		},
	)
}

func TestAnUnreadableFileIsLeftOutAndNamed(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every file")
	}
	dir := repo(t)
	write(t, dir, "root-owned.txt", "unreadable\n")
	os.Chmod(filepath.Join(dir, "root-owned.txt"), 0)
	write(t, dir, "new.txt", "new\n")
	s := open(t, dir, Options{})
	snap, err := s.Take(context.Background(), "s", "p1")
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Skipped) != 1 || snap.Skipped[0].Path != "root-owned.txt" || snap.Skipped[0].Reason != "unreadable" {
		t.Errorf("skipped = %+v", snap.Skipped)
	}
}

// A file swapped for a FIFO between its lstat and its read is not read
// (which would wait for a writer that never comes): it is another file,
// and the checkpoint looks again.
func TestAFileSwappedForAFIFOWhileReadIsNotWaitedOn(t *testing.T) {
	dir := repo(t)
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	fi, err := root.Lstat("a.txt")
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "a.txt"))
	if err := syscall.Mkfifo(filepath.Join(dir, "a.txt"), 0o644); err != nil {
		t.Skip("no FIFO here:", err)
	}
	if _, _, err := content(root, "a.txt", fi, 0o100644); err != errReplaced {
		t.Errorf("reading a FIFO in place of the file lstat saw: %v, want errReplaced", err)
	}
}
