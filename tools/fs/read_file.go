package fs

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/agent-dev/agent/media"
	"github.com/agent-dev/agent/tools"
)

//go:embed read_file.md
var readFileDescription string

const readFileSchema = `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "file to read"},
    "offset": {"type": "integer", "minimum": 1, "description": "first line, 1-based; default 1"},
    "limit": {"type": "integer", "minimum": 1, "description": "number of lines; default 2000"}
  },
  "required": ["path"],
  "additionalProperties": false
}`

const (
	readDefaultLimit = 2000      // lines shown when no limit is given
	readMaxLineChars = 2000      // characters of a line shown before it is cut
	readWholeMax     = 256 << 10 // bytes: larger files are read by range only
	readOutputMax    = 256 << 10 // bytes of output after which the range is cut short
	binarySniff      = 8 << 10   // bytes searched for a NUL to call a file binary
)

type readFile struct {
	wd         *workdir
	sessions   *Sessions
	imageLimit media.Limit // zero: media.Default
	// readDirs are folders outside the root that read_file may read too
	// (the skills' folders), absolute.
	readDirs []string
}

// ReadFile returns the read_file tool confined to root. Each successful
// read, whole or by range, is recorded with the hash of the file's whole
// content in the tracker of the call's session in sessions (the first one
// given; without one, in a Sessions of its own), which is what lets
// write_file overwrite the file afterwards.
func ReadFile(root *os.Root, sessions ...*Sessions) tools.Tool {
	t := &readFile{wd: newWorkdir(root)}
	if len(sessions) > 0 && sessions[0] != nil {
		t.sessions = sessions[0]
	} else {
		t.sessions = NewSessions(nil)
	}
	return t
}

var _ tools.Tool = (*readFile)(nil)

func (*readFile) Definition() tools.Definition {
	return tools.Definition{
		Name:        "read_file",
		Description: readFileDescription,
		Schema:      json.RawMessage(readFileSchema),
		ReadOnly:    true,
		Effects:     tools.ReadsWorkspace,
		Kind:        tools.KindRead,
		Summarize:   summarizePath,
	}
}

type readFileArgs struct {
	Path   string `json:"path"`
	Offset int    `json:"offset"`
	Limit  int    `json:"limit"`
}

func (t *readFile) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	var args readFileArgs
	if err := json.Unmarshal(call.Args, &args); err != nil {
		return tools.Errorf("invalid arguments: %v", err), nil
	}
	if args.Offset < 0 || args.Limit < 0 {
		return tools.Errorf("offset and limit must be positive"), nil
	}
	wd, inRoot := t.wd, true
	rel, err := wd.rel(args.Path)
	if err != nil {
		extra, extraRel, ok := t.readDir(args.Path)
		if !ok {
			return tools.Errorf("%v", err), nil
		}
		defer extra.root.Close()
		wd, rel, inRoot = extra, extraRel, false
	}
	if rel == "." {
		return tools.Errorf("%s is a directory; use list_files to see its files", args.Path), nil
	}
	// One resolution: the denied check reads the path it reached, and the
	// file is opened from the directory it holds (no symlink swapped in
	// between can lead the read to credentials).
	tg, err := wd.target(rel)
	if err != nil {
		return tools.Errorf("%s", describeTarget(args.Path, err)), nil
	}
	defer tg.close()
	if wd.deniedAt(rel, tg.real) {
		return tools.Errorf(errCredentials, args.Path), nil
	}
	fi := tg.fi
	if fi == nil {
		return tools.Errorf("%s does not exist", args.Path), nil
	}
	if fi.IsDir() {
		return tools.Errorf("%s is a directory; use list_files to see its files", args.Path), nil
	}
	if !fi.Mode().IsRegular() {
		return tools.Errorf("%s is not a regular file", args.Path), nil
	}
	f, err := wd.openText(ctx, tg)
	if err != nil {
		return tools.Errorf("%s", describe(args.Path, err)), nil
	}
	defer f.Close()
	sum := sha256.New()
	br := bufio.NewReaderSize(io.TeeReader(f, sum), 64<<10)
	head, _ := br.Peek(binarySniff)
	if _, ok := media.Sniff(head); ok {
		return t.image(ctx, call, args.Path, rel, br, sum, fi.Size())
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return tools.Errorf("%s looks binary (a NUL byte in its first 8 KiB); read_file shows text files only", args.Path), nil
	}
	if fi.Size() > readWholeMax && args.Offset == 0 && args.Limit == 0 {
		n, err := countLines(ctx, br)
		if err != nil {
			return t.failed(ctx, args.Path, err)
		}
		return tools.Errorf("%s is %s (%d lines), more than read_file shows at once (%s); read it by range with offset and limit, or grep it",
			args.Path, media.Size(int(fi.Size())), n, media.Size(int(readWholeMax))), nil
	}
	first, limit := max(args.Offset, 1), args.Limit
	if limit == 0 {
		limit = readDefaultLimit
	}
	w, err := readRange(ctx, br, first, limit)
	if err != nil {
		return t.failed(ctx, args.Path, err)
	}
	meta := map[string]any{"lines": w.total, "from": first, "to": w.last, "cut_lines": w.cut}
	switch {
	case w.total == 0:
		if inRoot {
			t.record(t.sessions.Tracker(call.Session), rel, br, sum)
		}
		return tools.Result{Content: fmt.Sprintf("(%s is empty)", args.Path), Meta: meta}, nil
	case first > w.total:
		return tools.Errorf("offset %d is past the end of %s, which has %d lines", first, args.Path, w.total), nil
	}
	if inRoot {
		t.record(t.sessions.Tracker(call.Session), rel, br, sum)
	}
	if first > 1 || w.last < w.total {
		fmt.Fprintf(&w.out, "(lines %d-%d of %d", first, w.last, w.total)
		if w.last < w.total {
			fmt.Fprintf(&w.out, "; continue with offset=%d", w.last+1)
		}
		w.out.WriteString(")\n")
	}
	return tools.Result{Content: w.out.String(), Meta: meta}, nil
}

// readDir opens the folder of t.readDirs that holds p, an absolute path,
// as a root of its own (closed by the caller), and returns p relative to
// it. Symlinks cannot lead out of the folder: the root refuses them.
func (t *readFile) readDir(p string) (*workdir, string, bool) {
	p = strings.TrimSpace(p)
	if !filepath.IsAbs(p) {
		return nil, "", false
	}
	for _, d := range t.readDirs {
		r, err := filepath.Rel(d, filepath.Clean(p))
		if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			continue
		}
		root, err := os.OpenRoot(d)
		if err != nil {
			continue
		}
		return newWorkdir(root), filepath.ToSlash(r), true
	}
	return nil, "", false
}

// record notes in the tracker that the model has read rel, hashing what is
// left of the file first so that the hash covers all of it.
func (t *readFile) record(tr *Tracker, rel string, rest io.Reader, sum hash.Hash) {
	if _, err := io.Copy(io.Discard, rest); err != nil {
		return
	}
	tr.record(rel, [sha256.Size]byte(sum.Sum(nil)))
}

func (t *readFile) failed(ctx context.Context, p string, err error) (tools.Result, error) {
	if ctx.Err() != nil {
		return tools.Result{}, ctx.Err()
	}
	return tools.Errorf("reading %s: %v", p, err), nil
}

// window is the outcome of readRange.
type window struct {
	out   strings.Builder // numbered lines
	last  int             // number of the last line shown
	total int             // lines in the file
	cut   int             // lines cut for length
}

// readRange numbers limit lines from line first on and counts the rest.
func readRange(ctx context.Context, br *bufio.Reader, first, limit int) (*window, error) {
	w := &window{}
	n := 0
	for n < first-1 {
		_, _, err := readLine(br, 0)
		if err == io.EOF {
			w.total = n
			return w, nil
		}
		if err != nil {
			return nil, err
		}
		n++
		if n%65536 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	for n < first-1+limit && w.out.Len() < readOutputMax {
		line, length, err := readLine(br, 4*readMaxLineChars)
		if err == io.EOF {
			w.last, w.total = n, n
			return w, nil
		}
		if err != nil {
			return nil, err
		}
		n++
		fmt.Fprintf(&w.out, "%6d\t", n)
		if length > len(line) || utf8.RuneCount(line) > readMaxLineChars {
			line = cutRunes(line, readMaxLineChars)
			fmt.Fprintf(&w.out, "%s… [line cut; %d bytes in all]\n", line, length)
			w.cut++
		} else {
			w.out.Write(line)
			w.out.WriteByte('\n')
		}
	}
	w.last = n
	rest, err := countLines(ctx, br)
	w.total = n + rest
	return w, err
}

// readLine reads one line and returns up to keep bytes of it and its
// length in bytes, both without the line ending. At the end of the text it
// returns io.EOF and no line.
func readLine(br *bufio.Reader, keep int) (line []byte, length int, err error) {
	read := 0
	for {
		frag, err := br.ReadSlice('\n')
		read += len(frag)
		if room := keep - len(line); room > 0 {
			line = append(line, frag[:min(len(frag), room)]...)
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && read == 0:
			return nil, 0, io.EOF
		case err != nil && err != io.EOF:
			return nil, 0, err
		}
		length = read
		if len(frag) > 0 && frag[len(frag)-1] == '\n' {
			length--
			if len(frag) > 1 && frag[len(frag)-2] == '\r' {
				length--
			}
		}
		return line[:min(len(line), length)], length, nil
	}
}

// countLines counts the lines left in r: its newlines, plus one for a last
// line without one.
func countLines(ctx context.Context, r io.Reader) (int, error) {
	buf := make([]byte, 64<<10)
	n, ended := 0, true
	for {
		k, err := r.Read(buf)
		if k > 0 {
			n += bytes.Count(buf[:k], []byte("\n"))
			ended = buf[k-1] == '\n'
		}
		if errors.Is(err, io.EOF) {
			if !ended {
				n++
			}
			return n, nil
		}
		if err != nil {
			return n, err
		}
		if ctx.Err() != nil {
			return n, ctx.Err()
		}
	}
}

// cutRunes returns the first n runes of b.
func cutRunes(b []byte, n int) []byte {
	i := 0
	for ; n > 0 && i < len(b); n-- {
		_, w := utf8.DecodeRune(b[i:])
		i += w
	}
	return b[:i]
}
