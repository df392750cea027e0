package checkpoint

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Whether a project has a session's index decides what a start warms (the
// watch, or a first read of the tree): dot files (the latest index's name,
// a copy being made) are not indexes, and an index is found among many.
func TestHasIndexLooksPastDotFiles(t *testing.T) {
	dir := t.TempDir()
	if hasIndex(filepath.Join(dir, "missing")) {
		t.Error("a missing directory has an index")
	}
	for i := range 40 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf(".copy-%d", i)), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if hasIndex(dir) {
		t.Error("dot files alone count as an index")
	}
	if err := os.WriteFile(filepath.Join(dir, "00396c7f064b"), []byte("DIRC"), 0o600); err != nil {
		t.Fatal(err)
	}
	if !hasIndex(dir) {
		t.Error("the index among 40 dot files was not found")
	}
}
