// Package instructions reads the project instructions that go into a
// session's system prompt: AGENTS.md, and Claude Code's memory files
// (code.claude.com/docs/en/memory): CLAUDE.md and .claude/CLAUDE.md in the
// working directory and each parent directory up to the repository's top,
// CLAUDE.local.md beside them, ~/.claude/CLAUDE.md, the rules of
// .claude/rules/ (recursive; a rule with `paths:` in its front matter
// applies only to the files its patterns match), and the files all of
// these import with @path (five levels deep, inside the repository or the
// user's home).
//
// Files are read through os.Root at the repository's top and at the home
// directory, so a symlink cannot lead a read elsewhere, and only regular
// files are read, so a FIFO cannot block a start. A file that is a link to
// one already read, or whose text is the same as one already read (a
// CLAUDE.md copied from AGENTS.md), is read once.
package instructions

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Limits of what goes into a system prompt.
const (
	// MaxFileBytes caps one file (32 KiB); a longer one is cut with a note.
	MaxFileBytes = 32 << 10
	// MaxTotalBytes caps all files together (96 KiB); files past it are
	// left out with a warning.
	MaxTotalBytes = 96 << 10
	// MaxImportDepth is how deep @path imports are followed (Claude
	// Code's five hops).
	MaxImportDepth = 5
)

// File is one instruction file in the system prompt.
type File struct {
	// Path is the file's absolute path; Name is how the prompt names it
	// (relative to the repository's top, or ~/ for the user's).
	Path, Name string
	// Text is its trimmed content, cut at MaxFileBytes.
	Text string
	// ImportedBy is the Name of the file whose @path brought it in; "" for
	// one found in its place.
	ImportedBy string
}

// Options say where to look.
type Options struct {
	// Dir is the working directory, absolute.
	Dir string
	// Top is the repository's top, Dir or a parent of it ("" takes the
	// nearest parent holding .git, else Dir): instruction files are looked
	// for from Top down to Dir, and imports may not leave Top or Home.
	Top string
	// Home is the user's home ("" reads nothing of the user's).
	Home string
	// Denied reports whether an absolute path holds credentials; such a
	// file is never read, imported or not (nil denies none).
	Denied func(abs string) bool
}

// Set is what Load found.
type Set struct {
	// Files go into the system prompt, in order: the user's first, then
	// the repository's from its top down to the working directory, each
	// file followed by what it imports.
	Files []File
	// Rules are the rules whose `paths:` scope them to some files; the
	// others are among Files.
	Rules []Rule
	// Warnings are problems met, one line each (an import outside the
	// repository, a rule that cannot be read, files left out for size).
	Warnings []string
}

// reader reads instruction files below two roots, the repository's top and
// the home directory, and remembers what it read.
type reader struct {
	o        Options
	top      *os.Root
	home     *os.Root
	seen     map[string]bool // real paths read
	texts    map[string]bool // texts read
	set      Set
	total    int
	leftOver []string
}

// Load reads the instruction files for work in o.Dir. It never fails: a
// file that cannot be read is left out, and said among the warnings when
// it exists.
func Load(o Options) Set {
	o.Dir = filepath.Clean(o.Dir)
	if o.Top == "" {
		o.Top = FindTop(o.Dir)
	}
	o.Top = filepath.Clean(o.Top)
	if !within(o.Dir, o.Top) {
		o.Top = o.Dir
	}
	r := &reader{o: o, seen: map[string]bool{}, texts: map[string]bool{}}
	if top, err := os.OpenRoot(o.Top); err == nil {
		r.top = top
		defer top.Close()
	}
	if o.Home != "" && filepath.IsAbs(o.Home) {
		if home, err := os.OpenRoot(o.Home); err == nil {
			r.home = home
			defer home.Close()
		}
	}
	if o.Home != "" {
		r.add(filepath.Join(o.Home, ".claude", "CLAUDE.md"), "", 0, false)
		r.rules(filepath.Join(o.Home, ".claude", "rules"), o.Dir)
	}
	for _, d := range levels(o.Top, o.Dir) {
		if d == o.Dir {
			r.add(filepath.Join(d, "AGENTS.md"), "", 0, true)
		}
		r.add(filepath.Join(d, "CLAUDE.md"), "", 0, true)
		r.add(filepath.Join(d, ".claude", "CLAUDE.md"), "", 0, true)
		r.rules(filepath.Join(d, ".claude", "rules"), d)
		r.add(filepath.Join(d, "CLAUDE.local.md"), "", 0, true)
	}
	if len(r.leftOver) > 0 {
		r.set.Warnings = append(r.set.Warnings, fmt.Sprintf("instructions: left out past %d KiB in all: %s", MaxTotalBytes>>10, strings.Join(r.leftOver, ", ")))
	}
	return r.set
}

// FindTop returns the nearest of dir and its parents that holds .git (a
// directory, or a file as in a linked worktree), or dir when none does.
func FindTop(dir string) string {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return filepath.Clean(dir)
		}
	}
}

// levels are top and each directory below it down to dir, top first.
func levels(top, dir string) []string {
	var out []string
	for d := dir; ; d = filepath.Dir(d) {
		out = append(out, d)
		if d == top || filepath.Dir(d) == d {
			break
		}
	}
	slices.Reverse(out)
	return out
}

// add reads abs, imported by the file named by (depth hops down), and the
// files it imports. repo says the chain started at a repository's file:
// such a chain imports from the home directory only the person's own
// instruction files (userInstructions), never their dotfiles or history.
func (r *reader) add(abs, by string, depth int, repo bool) {
	if repo && by != "" && !within(filepath.Clean(abs), r.o.Top) && r.o.Home != "" && within(filepath.Clean(abs), r.o.Home) && !userInstructions(abs, r.o.Home) {
		r.set.Warnings = append(r.set.Warnings, fmt.Sprintf("instructions: import %s (in %s) skipped: a repository's file imports from your home only ~/.claude/**/*.md", abs, by))
		return
	}
	text, name, ok := r.read(abs, by != "")
	if !ok {
		return
	}
	if r.total+len(text) > MaxTotalBytes {
		r.leftOver = append(r.leftOver, name)
		return
	}
	r.total += len(text)
	r.set.Files = append(r.set.Files, File{Path: abs, Name: name, Text: text, ImportedBy: by})
	if depth < MaxImportDepth {
		for _, imp := range r.imports(text, filepath.Dir(abs)) {
			r.add(imp, name, depth+1, repo)
		}
	}
}

// read returns abs's text and the name the prompt gives it; ok is false
// for a file that is missing, not regular, outside both roots, denied, or
// already read (by its real path or its text). An import that cannot be
// read is warned of (named says it was asked for by name).
func (r *reader) read(abs string, named bool) (text, name string, ok bool) {
	root, rel, name := r.rootOf(abs)
	if root == nil {
		if named {
			r.set.Warnings = append(r.set.Warnings, fmt.Sprintf("instructions: import %s skipped: it lies outside the repository and the home directory", abs))
		}
		return "", "", false
	}
	real := abs
	if p, err := filepath.EvalSymlinks(abs); err == nil {
		real = p
	}
	if r.o.Denied != nil && (r.o.Denied(abs) || r.o.Denied(r.underRoots(real))) {
		if named {
			r.set.Warnings = append(r.set.Warnings, fmt.Sprintf("instructions: import %s skipped: it holds credentials", name))
		}
		return "", "", false
	}
	fi, err := root.Stat(rel)
	if err != nil || !fi.Mode().IsRegular() {
		if err != nil && !errors.Is(err, fs.ErrNotExist) && named {
			r.set.Warnings = append(r.set.Warnings, fmt.Sprintf("instructions: import %s: %v", name, err))
		}
		return "", "", false
	}
	if r.seen[real] {
		return "", "", false
	}
	r.seen[real] = true
	f, err := root.Open(rel)
	if err != nil {
		r.set.Warnings = append(r.set.Warnings, fmt.Sprintf("instructions: %s: %v", name, err))
		return "", "", false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		r.set.Warnings = append(r.set.Warnings, fmt.Sprintf("instructions: %s: %v", name, err))
		return "", "", false
	}
	text = strings.TrimSpace(strings.ReplaceAll(strings.TrimPrefix(string(data), "\ufeff"), "\r\n", "\n"))
	if len(data) > MaxFileBytes {
		text = strings.TrimSpace(text[:min(len(text), MaxFileBytes)]) + "\n(" + name + " was cut here)"
	}
	if text == "" || r.texts[text] {
		return "", "", false
	}
	r.texts[text] = true
	return text, name, true
}

// underRoots is real (a path with its symlinks resolved) named from the
// repository's top or the home directory as Options give them, so that
// Denied, which names paths so, knows it where the roots are themselves
// reached through a symlink (macOS's /var); real itself elsewhere.
func (r *reader) underRoots(real string) string {
	for _, root := range []string{r.o.Top, r.o.Home} {
		if root == "" {
			continue
		}
		resolved, err := filepath.EvalSymlinks(root)
		if err != nil {
			continue
		}
		if rel, err := filepath.Rel(resolved, real); err == nil && within(real, resolved) {
			return filepath.Join(root, rel)
		}
	}
	return real
}

// rootOf returns the root abs lies in (the repository's top first), its
// path relative to that root, and the name the prompt gives it.
func (r *reader) rootOf(abs string) (*os.Root, string, string) {
	abs = filepath.Clean(abs)
	if r.top != nil && within(abs, r.o.Top) {
		rel, _ := filepath.Rel(r.o.Top, abs)
		return r.top, rel, filepath.ToSlash(rel)
	}
	if r.home != nil && within(abs, r.o.Home) {
		rel, _ := filepath.Rel(r.o.Home, abs)
		return r.home, rel, "~/" + filepath.ToSlash(rel)
	}
	return nil, "", abs
}

// userInstructions reports whether abs is a Markdown file under
// ~/.claude, where Claude Code's documentation has a repository's
// CLAUDE.md import a person's own instructions from.
func userInstructions(abs, home string) bool {
	return strings.HasSuffix(abs, ".md") && within(filepath.Clean(abs), filepath.Join(home, ".claude"))
}

// within reports whether path is root or lies below it.
func within(path, root string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// Prompt is the system prompt's section holding the files, "" without
// any. Each file is one <instructions> element naming its file; a line
// says that path-scoped rules come with the tool results of the files they
// match.
func (s Set) Prompt() string {
	if len(s.Files) == 0 && len(s.Rules) == 0 {
		return ""
	}
	var b strings.Builder
	if len(s.Files) > 0 {
		b.WriteString("\nThe project's instructions, from the files named (a later file is more specific):\n")
		for _, f := range s.Files {
			fmt.Fprintf(&b, "<instructions file=%q>\n%s\n</instructions>\n", f.Name, f.Text)
		}
	}
	if len(s.Rules) > 0 {
		b.WriteString("More rules, each for some files, arrive with the first tool result that touches one of them.\n")
	}
	return b.String()
}

// Names are the names of the files and rules read, in order, for a
// listing (agent doctor).
func (s Set) Names() []string {
	var out []string
	for _, f := range s.Files {
		name := cmp.Or(f.Name, f.Path)
		if f.ImportedBy != "" {
			name += " (imported by " + f.ImportedBy + ")"
		}
		out = append(out, name)
	}
	for _, r := range s.Rules {
		out = append(out, r.Name+" (paths: "+strings.Join(r.Paths, ", ")+")")
	}
	return out
}
