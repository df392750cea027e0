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
	if len(b) < 12+20 || string(b[:4]) != "DIRC" {
		return nil, errors.New("not an index")
	}
	body, sum := b[:len(b)-20], b[len(b)-20:]
	if !bytes.Equal(sum, make([]byte, 20)) {
		if got := sha1.Sum(body); !bytes.Equal(got[:], sum) {
			return nil, errors.New("its checksum does not match")
		}
	}
	version := binary.BigEndian.Uint32(b[4:])
	if version < 2 || version > 4 {
		return nil, fmt.Errorf("%w: version %d", ErrUnsupported, version)
	}
	n := int(binary.BigEndian.Uint32(b[8:]))
	if n > len(body)/entryFixed {
		return nil, errors.New("more entries than bytes")
	}
	ents := make([]Entry, 0, n)
	off := 12
	var prev []byte // version 4: the last path, which the next one starts from
	for range n {
		if off+entryFixed > len(body) {
			return nil, errors.New("an entry is cut short")
		}
		e := body[off:]
		flags := binary.BigEndian.Uint16(e[60:])
		pathAt := entryFixed
		if flags&flagExtended != 0 {
			if version < 3 {
				return nil, errors.New("an extended entry in a version 2 index")
			}
			pathAt += 2
		}
		if pathAt > len(e) {
			return nil, errors.New("an entry is cut short")
		}
		var path []byte
		size := 0
		if version == 4 {
			strip, used := varint(e[pathAt:])
			if used == 0 || strip > len(prev) {
				return nil, errors.New("a path's prefix is wrong")
			}
			end := bytes.IndexByte(e[pathAt+used:], 0)
			if end < 0 {
				return nil, errors.New("an entry's path is not ended")
			}
			path = append(prev[:len(prev)-strip:len(prev)-strip], e[pathAt+used:pathAt+used+end]...)
			prev = path
			size = pathAt + used + end + 1
		} else {
			end := bytes.IndexByte(e[pathAt:], 0)
			if end < 0 {
				return nil, errors.New("an entry's path is not ended")
			}
			path = e[pathAt : pathAt+end]
			size = (pathAt + end + 8) &^ 7
		}
		ent := Entry{Path: string(path), Mode: binary.BigEndian.Uint32(e[24:])}
		copy(ent.ID[:], e[40:60])
		ents = append(ents, ent)
		off += size
	}
	if off > len(body) {
		return nil, errors.New("an entry is cut short")
	}
	for off < len(body) {
		if off+8 > len(body) {
			return nil, errors.New("an extension is cut short")
		}
		sig := string(body[off : off+4])
		size := int(binary.BigEndian.Uint32(body[off+4:]))
		if size > len(body)-off-8 {
			return nil, errors.New("an extension is cut short")
		}
		if sig == "link" || sig == "sdir" {
			return nil, fmt.Errorf("%w: the extension %q", ErrUnsupported, sig)
		}
		off += 8 + size
	}
	return ents, nil
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
