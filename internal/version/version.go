// Package version says which build of agent this is, and answers a plain
// `agent --version` before the slow packages start.
//
// Go runs the init work of every linked package before main, whether the
// run uses the package or not, and one of ours does eager work there that
// cannot be deferred from outside: chroma builds its registries of lexers
// and styles (glamour's code highlighting, about 7 ms). So a binary started
// as exactly `agent --version` prints the version from this package's init
// and exits. Go initialises packages in import-path order as soon as their
// imports are ready (the Go spec, "Package initialization"); this one
// imports only packages that every other package waits for (os, io, bytes,
// strings), and its path sorts before chroma's, as the sandbox helper's
// does (see package tools/shell/sandbox/helper). It must not import
// runtime/debug, which sorts after every github.com package and would make
// this init wait for chroma's, so an unstamped build reads its version from
// its own executable (buildinfo.go). Every other command line (`--version`
// among other arguments included), and a build whose executable cannot be
// read that way, goes to cobra, which prints the same line (cmd/version.go).
package version

import (
	"io"
	"os"
)

// stamped is set at release time by goreleaser:
// -ldflags "-X github.com/agent-dev/agent/internal/version.stamped=1.2.3".
// It is a variable because the linker can only set variables.
var stamped = ""

// Stamped returns the version stamped into a release build, or "".
func Stamped() string { return stamped }

// Line is what `agent --version` prints for version v.
func Line(v string) string { return "agent " + v + "\n" }

// answer writes the version line to w and reports true when args (without
// the program name) are exactly --version and v knows the version.
func answer(args []string, v func() (string, bool), w io.Writer) bool {
	if len(args) != 1 || args[0] != "--version" {
		return false
	}
	s, ok := v()
	if !ok {
		return false
	}
	io.WriteString(w, Line(s))
	return true
}

func init() {
	if answer(os.Args[1:], earlyVersion, os.Stdout) {
		os.Exit(0)
	}
}
