package gitfmt

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Objects is a repository's object directory (GIT_DIR/objects) as loose
// objects: each the zlib-deflated "KIND SIZE\0" header and content, at
// objects/XX/YYYY... by its id (gitrepository-layout(5)). An object found
// only in a pack is written loose again, which git reads as the same
// object: the checkpoint store never packs its own.
type Objects struct {
	Dir string // the objects directory, absolute
}

// zlibBuf is a deflater at git's loose compression (core.looseCompression's
// default: best speed) and its output, kept for the next object (a
// deflater's tables are hundreds of KiB).
type zlibBuf struct {
	buf bytes.Buffer
	w   *zlib.Writer
}

var zlibs = sync.Pool{New: func() any {
	z := &zlibBuf{}
	z.w, _ = zlib.NewWriterLevel(&z.buf, zlib.BestSpeed)
	return z
}}

// tmpSeq numbers this process's temporary object files.
var tmpSeq atomic.Int64

// Has reports whether the object id is there, loose.
func (o Objects) Has(id ID) bool {
	h := id.String()
	_, err := os.Lstat(filepath.Join(o.Dir, h[:2], h[2:]))
	return err == nil
}

// Write stores an object of kind ("blob", "tree") with content data and
// returns its id. An object already there is not written again but its
// time is set to now, as git does, so that a prune of unreachable objects
// older than its expiry, running at once, leaves it. It fails when the
// file cannot be written.
func (o Objects) Write(kind string, data []byte) (ID, error) {
	h := sha1.New()
	hdr := kind + " " + strconv.Itoa(len(data)) + "\x00"
	h.Write([]byte(hdr))
	h.Write(data)
	var id ID
	h.Sum(id[:0])
	hexID := id.String()
	dir := filepath.Join(o.Dir, hexID[:2])
	p := filepath.Join(dir, hexID[2:])
	now := time.Now()
	err := os.Chtimes(p, now, now)
	if err == nil {
		return id, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return id, fmt.Errorf("storing %s %s: %w", kind, hexID, err)
	}
	z := zlibs.Get().(*zlibBuf)
	defer zlibs.Put(z)
	z.buf.Reset()
	z.w.Reset(&z.buf)
	z.w.Write([]byte(hdr))
	z.w.Write(data)
	z.w.Close()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return id, fmt.Errorf("storing %s %s: %w", kind, hexID, err)
	}
	// Made read-only, as git makes them: its name is its content.
	var tmp string
	var f *os.File
	for try := 0; ; try++ {
		// A name a process of the same id left (it crashed) is passed by.
		tmp = filepath.Join(dir, fmt.Sprintf("tmp_obj_%d_%d", os.Getpid(), tmpSeq.Add(1)))
		f, err = os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o444)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) || try == 100 {
			return id, fmt.Errorf("storing %s %s: %w", kind, hexID, err)
		}
	}
	_, err = f.Write(z.buf.Bytes())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// Another writer's copy of the same object may have won: the
		// content is the same.
		err = os.Rename(tmp, p)
	}
	if err != nil {
		os.Remove(tmp)
		return id, fmt.Errorf("storing %s %s: %w", kind, hexID, err)
	}
	return id, nil
}
