// Package prefs keeps the interface's remembered choices: the theme chosen
// with /theme, vim keys switched with /vim, and the background colour each
// terminal answered (OSC 11), so that "auto" asks a terminal once. They
// live in one small JSON file beside the session database
// ($XDG_DATA_HOME/agent/prefs.json); the config file, written by the
// person, is never rewritten.
package prefs

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// Prefs are the remembered choices. A zero field was never chosen.
type Prefs struct {
	// Theme is the name of the theme chosen last with /theme ("dark",
	// "light", "auto", a built-in one's or a theme file's name).
	Theme string `json:"theme,omitempty"`
	// Vim is whether the input takes vim keys, as /vim left it; nil was
	// never switched.
	Vim *bool `json:"vim,omitempty"`
	// Backgrounds maps a terminal (TERM_PROGRAM, else TERM) to the
	// background it answered to OSC 11: "dark" or "light".
	Backgrounds map[string]string `json:"terminal_backgrounds,omitempty"`
}

// File is the prefs file at one path; it is safe for concurrent use
// within a process (writes are whole-file renames, so a reader in another
// process sees the old or the new file, never half of one).
type File struct {
	path string
	mu   sync.Mutex
}

// Open returns the prefs file at path; nothing is read until Load.
func Open(path string) *File { return &File{path: path} }

// DefaultPath is $XDG_DATA_HOME/agent/prefs.json, else
// ~/.local/share/agent/prefs.json; "" when neither is known. getenv is
// os.Getenv in production.
func DefaultPath(getenv func(string) string) string {
	if d := getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "agent", "prefs.json")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".local", "share", "agent", "prefs.json")
	}
	return ""
}

// Path is the file's path.
func (f *File) Path() string { return f.path }

// Load reads the prefs; a missing file gives zero Prefs and no error. A
// file that is not valid JSON is an error naming it (the caller goes on
// with zero Prefs and says so once).
func (f *File) Load() (Prefs, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.load()
}

func (f *File) load() (Prefs, error) {
	var p Prefs
	b, err := os.ReadFile(f.path)
	if errors.Is(err, fs.ErrNotExist) {
		return p, nil
	}
	if err != nil {
		return p, fmt.Errorf("reading %s: %w", f.path, err)
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return Prefs{}, fmt.Errorf("reading %s: %w", f.path, err)
	}
	return p, nil
}

// Update reads the prefs, lets change modify them and writes them back
// (the directory is made when missing; the file is written to a temporary
// name and renamed, mode 0600). A file that cannot be read as JSON is
// replaced by what change makes of zero Prefs.
func (f *File) Update(change func(*Prefs)) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, err := f.load()
	if err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		if !errors.As(err, &syn) && !errors.As(err, &typ) {
			return err
		}
	}
	change(&p)
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(f.path), 0o700); err != nil {
		return fmt.Errorf("writing %s: %w", f.path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(f.path), ".prefs-*.json")
	if err != nil {
		return fmt.Errorf("writing %s: %w", f.path, err)
	}
	_, werr := tmp.Write(append(b, '\n'))
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), f.path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %w", f.path, werr)
	}
	return nil
}
