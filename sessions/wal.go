package sessions

// The write-ahead log's upkeep: a process that leaves the store at its
// exit (Leave) leaves the log behind it, and the next open recovers it and,
// once it is long, copies it into the database file.

import (
	"os"
	"runtime"
)

// walBehind is the size of the write-ahead log, in bytes, past which an open
// copies it into the database file (checkpointBehind); it is also the log's
// journal_size_limit. About three five-step -p runs write it (a run writes
// about 310 KB): processes that Leave the store let the log grow, and every
// open reads all of it to recover it (about 3 µs a 4 KiB page:
// BenchmarkOpen; BENCHMARKS.md, "Issue 43, a fifth pass").
const walBehind = 1 << 20

// checkpointBehind copies the write-ahead log into the database file when
// it has grown past walBehind: SQLite's PASSIVE checkpoint, on a
// connection of its own, while this process reads as usual (and other
// processes read and write). This process's writes wait for it (ckpt):
// SQLite starts the log over only at a write that begins after a
// checkpoint has copied all of it, so a write that began first would add
// to the log the checkpoint had not reached, the log would not start over,
// and every later open would recover a longer one and copy it again (a
// five-step run paid about 10 ms for a log of 3.7 MB, the size the log
// reached in a row of runs; BENCHMARKS.md, "Issue 43, a tenth pass").
// Leave and Close wait for it too; Close stops it. A checkpoint stopped or
// failed leaves the log as it was, for the next.
//
// The file's size tells the log's: journal_size_limit truncates the file
// to walBehind at the first commit after SQLite starts the log over, so a
// file larger than that holds that much of the current log.
func (s *Store) checkpointBehind() {
	if !s.logPastBehind() {
		close(s.ckpt)
		return
	}
	go func() {
		defer close(s.ckpt)
		if s.beforeCheckpoint != nil {
			s.beforeCheckpoint()
		}
		s.pool.ExecContext(s.bg, `PRAGMA wal_checkpoint(PASSIVE)`)
	}()
}

// logPastBehind reports whether the write-ahead log's file is larger than
// walBehind (see checkpointBehind); false when it cannot be read.
func (s *Store) logPastBehind() bool {
	fi, err := os.Stat(s.path + "-wal")
	return err == nil && fi.Size() > walBehind
}

// flushBehind starts, when the write-ahead log is past walBehind (so that
// the open will checkpoint it: checkpointBehind), the kernel's write of the
// log to the disk, in the background: the checkpoint's first step syncs
// the log, and the runs that wrote it did not (synchronous=NORMAL), so a
// row of runs leaves it in the page cache, and that sync waited for all of
// it (about 5 ms for 1.3 MB on this project's test machine; BENCHMARKS.md,
// "Issue 43, a tenth pass") while this process's writes waited for the
// checkpoint. Begun before the open recovers the log and reads the schema,
// the write is done or under way when the checkpoint asks for it. A
// failure is the checkpoint's to meet. Not on Windows.
func (s *Store) flushBehind() {
	if runtime.GOOS == "windows" {
		// FlushFileBuffers needs a handle that may write, and one open
		// beside SQLite's could stop it deleting the log.
		return
	}
	if !s.logPastBehind() {
		return
	}
	s.flushing.Go(func() {
		f, err := os.Open(s.path + "-wal")
		if err != nil {
			return
		}
		f.Sync()
		f.Close()
	})
}
