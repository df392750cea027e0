//go:build ignore

// build.go builds the sandbox helper (csrc/agent-sandbox.c) for each Linux
// architecture the agent is released for, into the directory of -o (this
// one by default: go generate), reproducibly: a static, freestanding
// program (no C library: its own system-call stubs) without build id,
// symbols or unwind tables, so that what it builds to depends on the
// compiler and the source alone, which TestEmbeddedHelpersAreBuiltFromThisSource
// checks. Compilers: gcc for amd64, aarch64-linux-gnu-gcc for arm64 (on
// Debian, gcc and gcc-aarch64-linux-gnu; each may be named with
// CC_amd64 and CC_arm64).
//
// Usage: go run build.go [-o DIR] | [-cc ARCH]
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// cflags are the compiler's flags. -fno-tree-loop-distribute-patterns: the
// program's own memset and memcpy must not be compiled into calls to
// themselves.
var cflags = []string{
	"-Os", "-static", "-nostdlib", "-fno-pie", "-no-pie", "-ffreestanding", "-fno-stack-protector",
	"-fno-tree-loop-distribute-patterns", "-fno-asynchronous-unwind-tables", "-fno-unwind-tables",
	"-Wall", "-Wextra", "-Werror", "-Wl,--build-id=none", "-Wl,-z,noexecstack", "-s",
}

func main() {
	out := flag.String("o", ".", "the directory to write agent-sandbox_linux_ARCH to")
	cc := flag.String("cc", "", "print the C compiler that builds for this architecture (amd64, arm64), and build nothing")
	flag.Parse()
	if *cc != "" {
		fmt.Println(compiler(*cc))
		return
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fail(err)
	}
	for _, arch := range []string{"amd64", "arm64"} {
		dst, err := filepath.Abs(filepath.Join(*out, "agent-sandbox_linux_"+arch))
		if err != nil {
			fail(err)
		}
		cc := compiler(arch)
		args := append(append([]string{}, cflags...), "-o", dst, "csrc/agent-sandbox.c")
		cmd := exec.Command(cc, args...)
		cmd.Env = append(os.Environ(), "LC_ALL=C", "SOURCE_DATE_EPOCH=0")
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			fail(fmt.Errorf("building the helper for linux/%s with %s: %w", arch, cc, err))
		}
	}
}

// compiler is the C compiler that builds for arch: $CC_arch, else gcc for
// amd64 and aarch64-linux-gnu-gcc for arm64.
func compiler(arch string) string {
	if cc := os.Getenv("CC_" + arch); cc != "" {
		return cc
	}
	if arch == "arm64" {
		return "aarch64-linux-gnu-gcc"
	}
	return "gcc"
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "build.go:", err)
	os.Exit(1)
}
