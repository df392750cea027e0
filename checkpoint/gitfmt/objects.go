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
	if err := os.Chtimes(p, now, now); err == nil {
		return id, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return id, fmt.Errorf("storing %s %s: %w", kind, hexID, err)
	}
	var buf bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&buf, zlib.BestSpeed) // core.looseCompression's default
	zw.Write([]byte(hdr))
	zw.Write(data)
	zw.Close()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return id, fmt.Errorf("storing %s %s: %w", kind, hexID, err)
	}
	tmp, err := os.CreateTemp(dir, "tmp_obj_")
	if err != nil {
		return id, fmt.Errorf("storing %s %s: %w", kind, hexID, err)
	}
	_, err = tmp.Write(buf.Bytes())
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o444)
	}
	if err == nil {
		// Another writer's copy of the same object may have won: the
		// content is the same.
		err = os.Rename(tmp.Name(), p)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return id, fmt.Errorf("storing %s %s: %w", kind, hexID, err)
	}
	return id, nil
}
