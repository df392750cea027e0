// Package gitfmt reads and writes, in process, the parts of git's on-disk
// formats a checkpoint needs between two git commands: a session's index
// (version 2, with the cache-tree extension), loose objects and trees. It
// follows gitformat-index(5) and gitrepository-layout(5) of git 2.x,
// object format SHA-1. What it does not know (another index version, an
// extension git requires readers to understand, entries in conflict, a
// stat it cannot take) it refuses with ErrUnsupported, and the caller runs
// git instead.
package gitfmt

import (
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"
)

// ErrUnsupported is returned for an index this package does not read or
// write (see the package comment): git can.
var ErrUnsupported = errors.New("an index git must read")

// ID is an object's name: the SHA-1 of its header and content.
type ID [20]byte

// String is the id as git prints it: 40 lower-case hex digits.
func (id ID) String() string { return hex.EncodeToString(id[:]) }

// ParseID reads 40 hex digits; it fails on anything else.
func ParseID(s string) (ID, error) {
	var id ID
	if len(s) != 40 {
		return id, fmt.Errorf("object id %q: not 40 hex digits", s)
	}
	if _, err := hex.Decode(id[:], []byte(s)); err != nil {
		return id, fmt.Errorf("object id %q: %w", s, err)
	}
	return id, nil
}

// The modes of an entry (git's, octal).
const (
	ModeFile       uint32 = 0o100644
	ModeExecutable uint32 = 0o100755
	ModeSymlink    uint32 = 0o120000
	ModeGitlink    uint32 = 0o160000
	modeTree       uint32 = 0o40000
)

// Stat is the part of a file's lstat(2) an index entry keeps, each field
// cut to its low 32 bits as git stores it: times in seconds and
// nanoseconds, the size in bytes. Git compares them with the file's to
// tell whether it changed without reading it.
type Stat struct {
	CtimeSec, CtimeNsec uint32
	MtimeSec, MtimeNsec uint32
	Dev, Ino            uint32
	UID, GID            uint32
	Size                uint32
}

// Entry is one file of an index.
type Entry struct {
	Path string // slash-separated, relative to the work tree
	Mode uint32 // ModeFile, ModeExecutable, ModeSymlink or ModeGitlink
	ID   ID     // the blob (a gitlink's commit)
	Stat Stat
}

// Index is an index file's entries (stage 0 only), sorted by path as git
// sorts them (byte by byte), and its cache tree: the trees of the
// directories whose entries have not changed since the tree was last
// written.
type Index struct {
	Entries []Entry
	tree    *cacheTree // nil: none
	// file is the index file as read or last written (nil: none):
	// WriteFile replaces only that file.
	file fs.FileInfo
}

const (
	entryFixed   = 62 // the bytes of an entry before its path
	nameMask     = 0x0fff
	flagExtended = 0x4000
	flagStage    = 0x3000
	flagValid    = 0x8000
)

// ReadIndex reads the index file at path. It fails with an error
// wrapping fs.ErrNotExist when there is none, ErrUnsupported for an index
// it does not know, and an error naming the path when the file is
// corrupt (its checksum, a truncated entry).
func ReadIndex(path string) (*Index, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	b := make([]byte, fi.Size())
	_, err = io.ReadFull(f, b)
	if err != nil {
		return nil, err
	}
	x, err := parseIndex(b)
	if err != nil {
		return nil, fmt.Errorf("reading the index %s: %w", path, err)
	}
	x.file = fi
	return x, nil
}

func parseIndex(b []byte) (*Index, error) {
	d, err := decode(b)
	if err != nil {
		return nil, err
	}
	if d.version != 2 {
		return nil, fmt.Errorf("%w: version %d", ErrUnsupported, d.version)
	}
	for _, f := range d.flags {
		if f&(flagExtended|flagStage|flagValid) != 0 {
			return nil, fmt.Errorf("%w: an entry in conflict, or marked", ErrUnsupported)
		}
	}
	x := &Index{Entries: d.entries}
	for _, e := range d.exts {
		switch {
		case e.sig == "TREE":
			t, rest, err := parseCacheTree(e.data)
			if err != nil || len(rest) != 0 {
				x.tree = nil // git rebuilds a broken one too
			} else {
				x.tree = t
			}
		case e.sig[0] < 'A' || e.sig[0] > 'Z':
			// A split index ("link"), sparse directories ("sdir"): git
			// says a reader must understand these.
			return nil, fmt.Errorf("%w: the extension %q", ErrUnsupported, e.sig)
		}
		// Other optional extensions (resolve-undo, the untracked cache)
		// are dropped, as git allows: it rebuilds them.
	}
	return x, nil
}

// entrySize is the bytes an entry with a path of n bytes takes: the fixed
// part and the path, padded with 1 to 8 NULs to a multiple of 8.
func entrySize(n int) int { return (entryFixed + n + 8) &^ 7 }

// Find returns the position of path's entry, or where it would go.
func (x *Index) Find(path string) (int, bool) {
	return slices.BinarySearchFunc(x.Entries, path, func(e Entry, p string) int { return strings.Compare(e.Path, p) })
}

// Has reports whether path has an entry.
func (x *Index) Has(path string) bool {
	_, ok := x.Find(path)
	return ok
}

// Under returns the entries beneath the directory dir (slash-separated,
// without a trailing slash).
func (x *Index) Under(dir string) []Entry {
	i, _ := x.Find(dir + "/")
	j := i
	for j < len(x.Entries) && strings.HasPrefix(x.Entries[j].Path, dir+"/") {
		j++
	}
	return x.Entries[i:j]
}

// Apply sets each entry of set (adding it or replacing the entry at its
// path, with the entries it cannot stand beside removed, as git
// update-index --replace does: the file or symbolic link a directory
// above it was, and what lay beneath a directory that it now is), then
// removes the entries at the paths of remove (a path in both goes, as
// git update-index --add then --force-remove leaves it), in one pass over
// the index whatever the number of changes.
func (x *Index) Apply(set []Entry, remove []string) {
	if len(set) == 0 && len(remove) == 0 {
		return
	}
	removed := make(map[string]bool, len(remove))
	for _, p := range remove {
		removed[p] = true
	}
	gone := maps.Clone(removed) // the index's entries removed by path
	// The paths set, each at its last setting: what was beneath them goes.
	files := make(map[string]bool, len(set))
	last := make(map[string]int, len(set))
	for i, e := range set {
		files[e.Path] = true
		last[e.Path] = i
	}
	// The files that were the directories above a path set go, one set
	// too: of a file and a path beneath it, the later setting replaces the
	// earlier.
	replaced := map[string]bool{}
	for p, i := range last {
		for d := p; ; {
			k := strings.LastIndexByte(d, '/')
			if k < 0 {
				break
			}
			d = d[:k]
			switch j, ok := last[d]; {
			case ok && j > i:
				replaced[p] = true
			case ok:
				replaced[d], gone[d] = true, true
			default:
				gone[d] = true
			}
		}
	}
	var add []Entry
	for _, e := range set {
		if !removed[e.Path] && !replaced[e.Path] {
			add = append(add, e)
		}
	}
	// The last setting of a path wins.
	slices.SortStableFunc(add, func(a, b Entry) int { return strings.Compare(a.Path, b.Path) })
	k := 0
	for _, e := range add {
		if k > 0 && add[k-1].Path == e.Path {
			add[k-1] = e
			continue
		}
		add[k] = e
		k++
	}
	add = add[:k]
	out := make([]Entry, 0, len(x.Entries)+len(add))
	j := 0
	for _, o := range x.Entries {
		for j < len(add) && add[j].Path < o.Path {
			x.invalidate(add[j].Path)
			out = append(out, add[j])
			j++
		}
		if gone[o.Path] || beneath(o.Path, files) {
			x.invalidate(o.Path)
			continue
		}
		if j < len(add) && add[j].Path == o.Path {
			continue // replaced: added next
		}
		out = append(out, o)
	}
	for ; j < len(add); j++ {
		x.invalidate(add[j].Path)
		out = append(out, add[j])
	}
	x.Entries = out
}

// beneath reports whether a directory above path is one of files.
func beneath(path string, files map[string]bool) bool {
	if len(files) == 0 {
		return false
	}
	for d := path; ; {
		i := strings.LastIndexByte(d, '/')
		if i < 0 {
			return false
		}
		d = d[:i]
		if files[d] {
			return true
		}
	}
}

// Bytes is the index file: its entries, the cache tree when there is one,
// and the checksum.
func (x *Index) Bytes() []byte {
	size := 12 + 20
	for _, e := range x.Entries {
		size += entrySize(len(e.Path))
	}
	b := make([]byte, 0, size+64)
	b = append(b, "DIRC"...)
	b = binary.BigEndian.AppendUint32(b, 2)
	b = binary.BigEndian.AppendUint32(b, uint32(len(x.Entries)))
	for _, e := range x.Entries {
		start := len(b)
		s := e.Stat
		for _, v := range []uint32{s.CtimeSec, s.CtimeNsec, s.MtimeSec, s.MtimeNsec, s.Dev, s.Ino, e.Mode, s.UID, s.GID, s.Size} {
			b = binary.BigEndian.AppendUint32(b, v)
		}
		b = append(b, e.ID[:]...)
		b = binary.BigEndian.AppendUint16(b, uint16(min(len(e.Path), nameMask)))
		b = append(b, e.Path...)
		for len(b)-start < entrySize(len(e.Path)) {
			b = append(b, 0)
		}
	}
	if x.tree != nil {
		data := x.tree.appendTo(nil, "")
		b = append(b, "TREE"...)
		b = binary.BigEndian.AppendUint32(b, uint32(len(data)))
		b = append(b, data...)
	}
	sum := sha1.Sum(b)
	return append(b, sum[:]...)
}

// ErrChanged is WriteFile's refusal of an index file another process
// wrote since this one was read.
var ErrChanged = errors.New("the index was written by another process since it was read")

// WriteFile writes the index to path as git does: path.lock made
// exclusively (a git command writing it at once fails rather than racing
// this write, and this write fails while git holds it), then renamed. An
// index read from path is written only over the file it was read from:
// it fails with ErrChanged when another process wrote path since (git
// holds its lock from its read to its write; this one is taken at the
// write only).
func (x *Index) WriteFile(path string) error {
	lock, err := os.OpenFile(path+".lock", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("writing the index %s: %w", path, err)
	}
	if x.file != nil {
		if cur, err := os.Stat(path); err != nil || !os.SameFile(cur, x.file) ||
			!cur.ModTime().Equal(x.file.ModTime()) || cur.Size() != x.file.Size() {
			lock.Close()
			os.Remove(path + ".lock")
			return fmt.Errorf("writing the index %s: %w", path, ErrChanged)
		}
	}
	_, err = lock.Write(x.Bytes())
	if cerr := lock.Close(); err == nil {
		err = cerr
	}
	var written fs.FileInfo
	if err == nil {
		written, err = os.Stat(path + ".lock")
	}
	if err == nil {
		err = os.Rename(path+".lock", path)
	}
	if err != nil {
		os.Remove(path + ".lock")
		return fmt.Errorf("writing the index %s: %w", path, err)
	}
	x.file = written
	return nil
}
