package helper

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"testing"
)

// TestImportsAreReadyEarly keeps the helper's imports to the standard
// packages that Go initialises early (see the package comment): one more,
// fmt or strings above all, and every sandboxed command waits a millisecond
// or more for some 60 unrelated packages before the helper takes over.
func TestImportsAreReadyEarly(t *testing.T) {
	allowed := map[string]bool{"errors": true, "os": true, "os/signal": true, "runtime": true,
		"strconv": true, "syscall": true, "time": true, "unsafe": true}
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("listing the package's files: %v", err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if matched, _ := filepath.Match("*_test.go", name); matched {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if !allowed[path] {
				t.Errorf("%s imports %q: the helper would take over later (see the package comment)", name, path)
			}
		}
	}
}
