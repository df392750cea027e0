// Package version holds the version stamped into a release build, and
// answers that build's `agent --version` before the slow packages start.
//
// Go runs the init work of every linked package before main, whether the
// run uses the package or not, and some of ours do eager work there that
// cannot be deferred from outside: chroma builds its registries of lexers
// and styles (glamour's code highlighting, about 8 ms) and the JSON-schema
// library compiles the meta-schemas of five drafts (about 4 ms). So a
// release build started as exactly `agent --version` prints the version from
// this package's init and exits. Go initialises packages in import-path order
// as soon as their imports are ready; this one imports only os and io, which
// are ready early, and sorts before chroma and the schema library, as the
// sandbox helper does (see package tools/shell/sandbox/helper). It must not
// import runtime/debug, which sorts after them and would make it wait for
// them: a build without a stamp (go build, go install), whose version comes
// from the build information, and every other command line (`--version`
// among other arguments included) go to cobra, which prints the same line
// (see cmd/version.go).
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
// the program name) are exactly --version and the build is stamped.
func answer(args []string, stamped string, w io.Writer) bool {
	if stamped == "" || len(args) != 1 || args[0] != "--version" {
		return false
	}
	io.WriteString(w, Line(stamped))
	return true
}

func init() {
	if answer(os.Args[1:], stamped, os.Stdout) {
		os.Exit(0)
	}
}
