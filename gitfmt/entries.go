package gitfmt

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
)

// ReadEntries reads the entries of the index file at path as git ls-files
// --stage lists them, for a reader that only looks (a user's index):
// versions 2, 3 and 4, every stage (a path in conflict comes once per
// stage), whatever their flags. It fails with an error wrapping
// fs.ErrNotExist when there is none, ErrUnsupported for an index whose
// entries are not all in the file (a split index, a sparse one), and an
// error naming the path when the file is damaged.
func ReadEntries(path string) ([]Entry, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	ents, err := parseEntries(b)
	if err != nil {
		return nil, fmt.Errorf("reading the index %s: %w", path, err)
	}
	return ents, nil
}

func parseEntries(b []byte) ([]Entry, error) {
	d, err := decode(b)
	if err != nil {
		return nil, err
	}
	for _, x := range d.exts {
		if x.sig == "link" || x.sig == "sdir" {
			return nil, fmt.Errorf("%w: the extension %q", ErrUnsupported, x.sig)
		}
	}
	return d.entries, nil
}

// decoded is an index file as read: its version, its entries with their
// flags (flags[i] is entries[i]'s), and its extensions, in order.
type decoded struct {
	version uint32
	entries []Entry
	flags   []uint16
	exts    []extension
}

// extension is one of an index's extensions: its signature and data.
type extension struct {
	sig  string
	data []byte
}

// decode reads an index file of version 2, 3 or 4 (gitformat-index(5)),
// checking its checksum unless it is null (index.skipHash). It fails with
// ErrUnsupported for another version and an error for a damaged file.
func decode(b []byte) (decoded, error) {
	var d decoded
	if len(b) < 12+20 || string(b[:4]) != "DIRC" {
		return d, errors.New("not an index")
	}
	body, sum := b[:len(b)-20], b[len(b)-20:]
	if !bytes.Equal(sum, make([]byte, 20)) {
		if got := sha1.Sum(body); !bytes.Equal(got[:], sum) {
			return d, errors.New("its checksum does not match")
		}
	}
	d.version = binary.BigEndian.Uint32(b[4:])
	if d.version < 2 || d.version > 4 {
		return d, fmt.Errorf("%w: version %d", ErrUnsupported, d.version)
	}
	n := int(binary.BigEndian.Uint32(b[8:]))
	if n > len(body)/entryFixed {
		return d, errors.New("more entries than bytes")
	}
	d.entries, d.flags = make([]Entry, 0, n), make([]uint16, 0, n)
	off := 12
	var prev []byte // version 4: the last path, which the next one starts from
	for range n {
		if off+entryFixed > len(body) {
			return d, errors.New("an entry is cut short")
		}
		e := body[off:]
		u := func(i int) uint32 { return binary.BigEndian.Uint32(e[4*i:]) }
		flags := binary.BigEndian.Uint16(e[60:])
		pathAt := entryFixed
		if flags&flagExtended != 0 {
			if d.version < 3 {
				return d, errors.New("an extended entry in a version 2 index")
			}
			pathAt += 2
		}
		if pathAt > len(e) {
			return d, errors.New("an entry is cut short")
		}
		var path []byte
		size := 0
		if d.version == 4 {
			strip, used := varint(e[pathAt:])
			if used == 0 || strip > len(prev) {
				return d, errors.New("a path's prefix is wrong")
			}
			end := bytes.IndexByte(e[pathAt+used:], 0)
			if end < 0 {
				return d, errors.New("an entry's path is not ended")
			}
			path = append(prev[:len(prev)-strip:len(prev)-strip], e[pathAt+used:pathAt+used+end]...)
			prev = path
			size = pathAt + used + end + 1
		} else {
			end := bytes.IndexByte(e[pathAt:], 0)
			if end < 0 {
				return d, errors.New("an entry's path is not ended")
			}
			path = e[pathAt : pathAt+end]
			size = (pathAt + end + 8) &^ 7
		}
		ent := Entry{
			Path: string(path),
			Mode: u(6),
			Stat: Stat{CtimeSec: u(0), CtimeNsec: u(1), MtimeSec: u(2), MtimeNsec: u(3), Dev: u(4), Ino: u(5),
				UID: u(7), GID: u(8), Size: u(9)},
		}
		copy(ent.ID[:], e[40:60])
		d.entries = append(d.entries, ent)
		d.flags = append(d.flags, flags)
		off += size
	}
	if off > len(body) {
		return d, errors.New("an entry is cut short")
	}
	for off < len(body) {
		if off+8 > len(body) {
			return d, errors.New("an extension is cut short")
		}
		sig := string(body[off : off+4])
		size := int(binary.BigEndian.Uint32(body[off+4:]))
		if size > len(body)-off-8 {
			return d, errors.New("an extension is cut short")
		}
		d.exts = append(d.exts, extension{sig: sig, data: body[off+8 : off+8+size]})
		off += 8 + size
	}
	return d, nil
}

// varint reads git's variable-length integer of version 4 indexes (the
// offset encoding of packs: seven bits a byte, most significant first,
// each continuation adding one) and the bytes it took; 0 bytes when b
// ends first or the value overflows.
func varint(b []byte) (int, int) {
	v := 0
	for i, c := range b {
		if i > 0 {
			v++
		}
		if v > 1<<24 {
			return 0, 0
		}
		v = v<<7 | int(c&0x7f)
		if c&0x80 == 0 {
			return v, i + 1
		}
	}
	return 0, 0
}
