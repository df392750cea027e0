//go:build ignore

// build.go builds the sandbox helper (tools/shell/sandbox/helper/cmd/agent-sandbox)
// for each Linux architecture the agent is released for, into the
// directory of -o (this one by default: go generate), reproducibly: without
// cgo, paths, build id, VCS stamp or profile, at the baseline instruction
// set, whatever the environment and `go env -w` say. The
// same Go release and source give the same bytes, which
// TestEmbeddedHelpersAreBuiltFromThisSource checks.
//
// Usage: go run build.go [-o DIR]
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

func main() {
	out := flag.String("o", ".", "the directory to write agent-sandbox_linux_ARCH to")
	flag.Parse()
	for _, arch := range []string{"amd64", "arm64"} {
		dst, err := filepath.Abs(filepath.Join(*out, "agent-sandbox_linux_"+arch))
		if err != nil {
			fail(err)
		}
		cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-pgo=off", "-ldflags=-s -w -buildid=", "-o", dst, "../helper/cmd/agent-sandbox")
		// GOENV=off: a setting of `go env -w` would count where the
		// variable is empty.
		cmd.Env = append(os.Environ(), "GOENV=off", "GOWORK=off", "GOFLAGS=", "GOEXPERIMENT=", "GOFIPS140=off",
			"CGO_ENABLED=0", "GOOS=linux", "GOARCH="+arch, "GOAMD64=v1", "GOARM64=v8.0")
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			fail(fmt.Errorf("building the helper for linux/%s: %w", arch, err))
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "build.go:", err)
	os.Exit(1)
}
