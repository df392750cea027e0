package host

import (
	"runtime/debug"

	"github.com/agent-dev/agent/internal/version"
)

// Version returns the version stamped into a release build, else the
// module version of a `go install`ed binary, else "dev". A stamped build
// answers a plain `agent --version` before cobra runs (package
// internal/version); cobra prints the same line, version.Line, for every
// other command line that asks.
func Version() string {
	if v := version.Stamped(); v != "" {
		return v
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
