// Package fs holds the file tools: list_files, read_file and grep, which
// only read, and edit_file and write_file, which change files. Every file
// access goes through an *os.Root opened on the working directory, so paths
// with "..", absolute paths elsewhere and symlinks that lead outside it are
// refused.
package fs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/protect"
)

// Tools returns list_files, read_file and grep, all confined to root.
func Tools(root *os.Root) []tools.Tool {
	return []tools.Tool{ListFiles(root), ReadFile(root), Grep(root)}
}

// workdir is the working directory the tools are confined to.
type workdir struct {
	root *os.Root
	// abs are the absolute spellings of the root's directory (as opened
	// and with symlinks resolved) used to accept absolute paths inside it.
	abs []string
	// protect names the credential files the tools do not read (nil: none).
	protect *protect.Guard
	// buffers, when not nil, reads and writes the text of files in place
	// of the disk (Options.Buffers).
	buffers Buffers
}

func newWorkdir(root *os.Root) *workdir {
	w := &workdir{root: root}
	if a, err := filepath.Abs(root.Name()); err == nil {
		w.abs = append(w.abs, a)
		if r, err := filepath.EvalSymlinks(a); err == nil && r != a {
			w.abs = append(w.abs, r)
		}
	}
	return w
}

// errOutside is the message for a path that leaves the working directory.
const errOutside = "%s is outside the working directory; only paths inside it can be used"

// rel turns a path from the model (relative to the working directory, or
// absolute inside it) into a clean slash path relative to the root, "." for
// the root itself. It refuses paths that lead outside lexically; symlinks
// are checked by os.Root when the path is opened.
func (w *workdir) rel(p string) (string, error) {
	p = strings.TrimSpace(p)
	if p == "" {
		return ".", nil
	}
	if filepath.IsAbs(p) {
		for _, a := range w.abs {
			r, err := filepath.Rel(a, filepath.Clean(p))
			if err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
				return filepath.ToSlash(r), nil
			}
		}
		return "", fmt.Errorf(errOutside, p)
	}
	c := path.Clean(filepath.ToSlash(p))
	if c == ".." || strings.HasPrefix(c, "../") || strings.HasPrefix(c, "/") || filepath.VolumeName(p) != "" {
		return "", fmt.Errorf(errOutside, p)
	}
	return c, nil
}

// native turns a slash path from rel into the form os.Root expects.
func native(rel string) string { return filepath.FromSlash(rel) }

// describe turns an error from opening p into a message for the model.
func describe(p string, err error) string {
	var pe *fs.PathError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Sprintf("%s does not exist", p)
	case strings.Contains(err.Error(), "escapes from parent"):
		return fmt.Sprintf("%s leads outside the working directory (through a symlink or ..); only paths inside it can be used", p)
	case errors.As(err, &pe):
		return fmt.Sprintf("cannot open %s: %v", p, pe.Err)
	}
	return fmt.Sprintf("cannot open %s: %v", p, err)
}

// join joins a slash directory (possibly ".") and a name.
func join(dir, name string) string {
	if dir == "." || dir == "" {
		return name
	}
	return dir + "/" + name
}
