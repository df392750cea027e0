package fs

import (
	"context"
	"os"
	"strings"
)

// A dirRef is an open directory below the root, shared by the walk and the
// searchers of the files found in it (see dir_linux.go and dir_other.go).
// It stays open while refs > 0.

// acquire keeps the directory open until the matching release.
func (d *dirRef) acquire() { d.refs.Add(1) }

// release closes the directory once nobody holds it.
func (d *dirRef) release() {
	if d.refs.Add(-1) == 0 {
		d.close()
	}
}

// walkFile is a regular file found by walk.
type walkFile struct {
	dir  *dirRef // the directory holding the file; valid during visit unless acquired
	name string  // the file's name in dir
	rel  string  // slash path relative to the working directory
}

// walk calls visit on walk's goroutine for each regular file below start (a
// slash directory relative to the root, "." for the root), in directory
// order. It skips .git, what .gitignore files exclude (the root's,
// .git/info/exclude, those of start's parents and every nested one),
// symlinks and special files; unreadable directories are skipped silently.
// To use f.dir after visit returns, visit must acquire it and later release
// it. walk returns ctx.Err() once ctx is cancelled, the first error visit
// returns, or the error opening start.
func walk(ctx context.Context, root *os.Root, start string, visit func(f walkFile) error) error {
	d, err := openStart(root, start)
	if err != nil {
		return err
	}
	return walkOpened(ctx, root, start, d, visit)
}

// walkOpened is walk from the directory start already opened as d (its
// one resolution, see target), which it releases.
func walkOpened(ctx context.Context, root *os.Root, start string, d *dirRef, visit func(f walkFile) error) error {
	defer d.release()
	ign := rootIgnores(root)
	if start != "." {
		parts := strings.Split(start, "/")
		for i := range len(parts) - 1 {
			base := strings.Join(parts[:i+1], "/")
			ign = ign.push(base, readIgnore(root, base+"/.gitignore"))
		}
	}
	return walkDir(ctx, d, start, ign, visit)
}

func rootIgnores(root *os.Root) *ignoreLayer {
	var ign *ignoreLayer
	ign = ign.push("", readIgnore(root, ".git/info/exclude"))
	return ign.push("", readIgnore(root, ".gitignore"))
}

func readIgnore(root *os.Root, name string) []ignoreRule {
	data, err := root.ReadFile(native(name))
	if err != nil {
		return nil
	}
	return parseIgnore(data)
}

func walkDir(ctx context.Context, d *dirRef, rel string, ign *ignoreLayer, visit func(walkFile) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	entries, _ := d.entries()
	if rel != "." { // the root's .gitignore was read by rootIgnores
		for _, e := range entries {
			if e.Name() == ".gitignore" && e.Type().IsRegular() {
				ign = ign.push(rel, d.readIgnore())
				break
			}
		}
	}
	for _, e := range entries {
		name, typ := e.Name(), e.Type()
		child := join(rel, name)
		switch {
		case typ.IsDir():
			if name == ".git" || ign.ignored(child, name, true) {
				continue
			}
			sd, err := d.sub(name)
			if err != nil {
				continue
			}
			err = walkDir(ctx, sd, child, ign, visit)
			sd.release()
			if err != nil {
				return err
			}
		case typ.IsRegular():
			if name == ".git" || ign.ignored(child, name, false) {
				continue
			}
			if err := visit(walkFile{dir: d, name: name, rel: child}); err != nil {
				return err
			}
		}
	}
	return nil
}
