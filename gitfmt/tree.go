package gitfmt

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// cacheTree is a directory of the index's cache-tree extension ("TREE",
// gitformat-index(5)): the tree git wrote for it and how many index
// entries lie beneath it; count -1 when an entry beneath changed since.
type cacheTree struct {
	count int
	id    ID
	subs  map[string]*cacheTree // by name, one path component
}

// parseCacheTree reads one directory and those beneath it: its name and
// a NUL, its entry count and subdirectory count in ASCII (a space, then a
// newline after them), and its id unless the count is -1; the
// subdirectories follow.
func parseCacheTree(b []byte) (*cacheTree, []byte, error) {
	return parseCacheTreeAt(b, 0)
}

// maxTreeDepth bounds the directories a cache tree nests: a path of
// PATH_MAX bytes has fewer.
const maxTreeDepth = 4096

func parseCacheTreeAt(b []byte, depth int) (*cacheTree, []byte, error) {
	bad := errors.New("a broken cache tree")
	if depth > maxTreeDepth {
		return nil, nil, bad
	}
	nul := bytes.IndexByte(b, 0)
	if nul < 0 {
		return nil, nil, bad
	}
	b = b[nul+1:]
	sp := bytes.IndexByte(b, ' ')
	nl := bytes.IndexByte(b, '\n')
	if sp < 0 || nl < sp {
		return nil, nil, bad
	}
	count, err1 := strconv.Atoi(string(b[:sp]))
	subs, err2 := strconv.Atoi(string(b[sp+1 : nl]))
	if err1 != nil || err2 != nil || subs < 0 || count < -1 {
		return nil, nil, bad
	}
	b = b[nl+1:]
	t := &cacheTree{count: count, subs: map[string]*cacheTree{}}
	if count >= 0 {
		if len(b) < 20 {
			return nil, nil, bad
		}
		copy(t.id[:], b)
		b = b[20:]
	}
	for range subs {
		end := bytes.IndexByte(b, 0)
		if end < 0 {
			return nil, nil, bad
		}
		name := string(b[:end])
		sub, rest, err := parseCacheTreeAt(b, depth+1)
		if err != nil {
			return nil, nil, err
		}
		t.subs[name] = sub
		b = rest
	}
	return t, b, nil
}

// appendTo appends the directory named name and those beneath it, as
// parseCacheTree reads them.
func (t *cacheTree) appendTo(b []byte, name string) []byte {
	b = append(b, name...)
	b = append(b, 0)
	b = strconv.AppendInt(b, int64(t.count), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(len(t.subs)), 10)
	b = append(b, '\n')
	if t.count >= 0 {
		b = append(b, t.id[:]...)
	}
	for n, sub := range t.subs {
		b = sub.appendTo(b, n)
	}
	return b
}

// invalidate marks the directories above path as changed.
func (x *Index) invalidate(path string) {
	t := x.tree
	for t != nil {
		t.count = -1
		dir, rest, ok := strings.Cut(path, "/")
		if !ok {
			return
		}
		t, path = t.subs[dir], rest
	}
}

// ErrMissing is WriteTree's refusal of an index that names an object the
// store does not have (git write-tree's "invalid object").
var ErrMissing = errors.New("an object the index names is missing")

// WriteTree writes the index's entries as trees in objs, one per
// directory, and returns the top one's id (git write-tree). The trees of
// directories whose entries did not change since the last one written
// are taken from the cache tree, neither built nor written again; the
// cache tree then holds every directory, for the next write and for git.
// It fails with ErrMissing when a blob of a directory it builds is not in
// objs, and when an object cannot be written.
func (x *Index) WriteTree(objs Objects) (ID, error) {
	t, err := x.writeTree(objs, x.Entries, "", x.tree)
	if err != nil {
		return ID{}, err
	}
	x.tree = t
	return t.id, nil
}

// writeTree writes the tree of the directory prefix (ending in a slash,
// "" for the top), whose entries are ents, and returns its cache tree;
// old is what the cache held for it (nil: nothing).
func (x *Index) writeTree(objs Objects, ents []Entry, prefix string, old *cacheTree) (*cacheTree, error) {
	// A tree the cache names is taken as git takes it: when the store
	// still has it (a prune may have removed it since).
	if old != nil && old.count == len(ents) && objs.Has(old.id) {
		return old, nil
	}
	t := &cacheTree{count: len(ents), subs: map[string]*cacheTree{}}
	var body []byte
	for i := 0; i < len(ents); {
		name := ents[i].Path[len(prefix):]
		dir, _, isDir := strings.Cut(name, "/")
		if !isDir {
			if ents[i].Mode != ModeGitlink && !objs.Has(ents[i].ID) {
				return nil, fmt.Errorf("%w: %s of %s", ErrMissing, ents[i].ID, ents[i].Path)
			}
			body = strconv.AppendUint(body, uint64(ents[i].Mode), 8)
			body = append(body, ' ')
			body = append(body, name...)
			body = append(body, 0)
			body = append(body, ents[i].ID[:]...)
			i++
			continue
		}
		sub := prefix + dir + "/"
		j := i + 1
		for j < len(ents) && strings.HasPrefix(ents[j].Path, sub) {
			j++
		}
		var was *cacheTree
		if old != nil {
			was = old.subs[dir]
		}
		st, err := x.writeTree(objs, ents[i:j], sub, was)
		if err != nil {
			return nil, err
		}
		t.subs[dir] = st
		body = strconv.AppendUint(body, uint64(modeTree), 8)
		body = append(body, ' ')
		body = append(body, dir...)
		body = append(body, 0)
		body = append(body, st.id[:]...)
		i = j
	}
	id, err := objs.Write("tree", body)
	if err != nil {
		return nil, err
	}
	t.id = id
	return t, nil
}
