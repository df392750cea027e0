package cmd

import (
	"os"
	"path/filepath"
	"testing"
)

// The export is readable by its owner only whatever was at its path: an
// existing file's looser mode is not kept, and a symlink is replaced by
// the file, its target left as it was.
func TestTheExportFileIsPrivate(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("untouched"), 0o644); err != nil {
		t.Fatal(err)
	}
	existing, link := filepath.Join(dir, "existing.json"), filepath.Join(dir, "link.json")
	if err := os.WriteFile(existing, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{existing, link, filepath.Join(dir, "new.json")} {
		if err := writePrivate(path, []byte("{}\n")); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		fi, err := os.Lstat(path)
		if err != nil {
			t.Fatal(err)
		}
		if !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want a regular file of mode 0600", filepath.Base(path), fi.Mode())
		}
		if b, _ := os.ReadFile(path); string(b) != "{}\n" {
			t.Errorf("%s holds %q", filepath.Base(path), b)
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "untouched" {
		t.Errorf("the symlink's target now holds %q", b)
	}
	fi, err := os.Stat(target)
	if err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("the symlink's target: %v, %v", fi, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 4 {
		t.Errorf("%d files in the directory, want 4: no temporary file left", len(entries))
	}
}
