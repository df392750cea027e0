// Package gobuild builds the module's binaries for the end-to-end tests.
package gobuild

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// Build builds the package pkg (a path such as "." or "./internal/x",
// relative to root, the module's root directory) as a release is built,
// with CGO_ENABLED=0 and without the race detector, into dir/name, and
// returns the binary's path. The error carries the go command's output.
func Build(root, pkg, dir, name string) (string, error) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		goCmd = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	out := filepath.Join(dir, name)
	src, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	cmd := exec.Command(goCmd, "build", "-o", out, pkg)
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", pkg, err, msg)
	}
	return out, nil
}
