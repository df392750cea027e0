// Package gobuild builds the module's binaries for the end-to-end tests: once
// for all the test processes of a run, in a directory they share, under a
// file lock.
package gobuild

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"go/build"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// Mode says how a binary is built.
type Mode int

const (
	// Default builds with the environment's settings, as go test builds a
	// test binary without -race: once the tests are compiled, only a link.
	Default Mode = iota
	// Release builds as a release is built: CGO_ENABLED=0, no race
	// detector, with the profile agent.pgo (profile-guided optimization;
	// .ci/run's cross-compile builds so first); every mode builds with the
	// release's build tags.
	Release
	// Race builds with the race detector (which needs cgo).
	Race
)

func (m Mode) String() string {
	switch m {
	case Release:
		return "release"
	case Race:
		return "race"
	}
	return "default"
}

// ReleaseProfile is the CPU profile, relative to the module's root, that
// a release is built with (go build's -pgo; bench/pgo.sh writes it). A
// tree without it builds without a profile.
const ReleaseProfile = "agent.pgo"

// interruptGrace is how long the go command has to stop after an interrupt
// before it is killed.
const interruptGrace = 10 * time.Second

// Build builds the package pkg (a path such as "." or "./internal/x",
// relative to root, the module's root directory) in mode into the file out.
// The go command relinks out only when it is stale (its sources, flags or
// toolchain changed), so a current out costs a check of the build cache. The
// error carries the go command's output. When ctx ends the go command is
// interrupted, and killed interruptGrace later.
func Build(ctx context.Context, root, pkg, out string, mode Mode) error {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		// Not on PATH: the toolchain that built this test binary
		// (go/build's GOROOT, what runtime.GOROOT gave before Go 1.24
		// deprecated it).
		goCmd = filepath.Join(build.Default.GOROOT, "bin", "go")
	}
	src, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	// The README's and goreleaser's tag: gRPC without golang.org/x/net/trace
	// (BENCHMARKS.md, "The binary and package init").
	args := []string{"build", "-tags", "grpcnotrace", "-o", out}
	switch mode {
	case Race:
		args = append(args, "-race")
	case Release:
		if _, err := os.Stat(filepath.Join(src, ReleaseProfile)); err == nil {
			args = append(args, "-pgo="+ReleaseProfile)
		}
	}
	cmd := exec.CommandContext(ctx, goCmd, append(args, pkg)...)
	cmd.Dir = src
	cmd.Env = os.Environ()
	if mode == Release {
		cmd.Env = append(cmd.Env, "CGO_ENABLED=0")
	}
	ownGroup(cmd)
	cmd.Cancel = func() error { return interrupt(cmd) }
	cmd.WaitDelay = interruptGrace
	if msg, err := cmd.CombinedOutput(); err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (%v)", ctx.Err(), err)
		}
		return fmt.Errorf("go %v in %s: %w\n%s", cmd.Args[1:], src, err, msg)
	}
	return nil
}

// Shared builds pkg in mode as Build does, into a directory that every
// process of this user shares that builds the same package of the same
// checkout (root) in the same mode, holding an exclusive lock on that
// directory meanwhile: the first process builds, the others wait for the
// lock and then find the binary current. It returns dir/name, a private link
// to the binary (a hard link, else a copy), which a later rebuild in the
// shared directory, after a change of the sources, leaves as it is. Waiting
// for the lock and building end with ctx. Where no file lock is available,
// Shared builds into dir/name itself.
func Shared(ctx context.Context, root, pkg string, mode Mode, dir, name string) (string, error) {
	private := filepath.Join(dir, name)
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	shared := sharedDir(abs, pkg, mode)
	if err := os.MkdirAll(shared, 0o700); err != nil {
		return "", err
	}
	unlock, err := lock(ctx, filepath.Join(shared, "lock"))
	if errors.Is(err, errNoLock) {
		return private, Build(ctx, root, pkg, private, mode)
	}
	if err != nil {
		return "", err
	}
	defer unlock()
	built := filepath.Join(shared, name)
	if err := Build(ctx, root, pkg, built, mode); err != nil {
		return "", err
	}
	return private, link(built, private)
}

// sharedDir is the directory of the shared build of pkg of the checkout at
// root (an absolute path) in mode.
func sharedDir(root, pkg string, mode Mode) string {
	key := sha256.Sum256([]byte(root + "\x00" + pkg + "\x00" + mode.String()))
	return filepath.Join(os.TempDir(), fmt.Sprintf("agent-gobuild-%d", os.Getuid()), hex.EncodeToString(key[:8]))
}

// link makes dst the file src is, by a hard link, else by a copy.
func link(src, dst string) error {
	os.Remove(dst)
	if os.Link(src, dst) == nil {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copying %s: %w", src, err)
	}
	return out.Close()
}
