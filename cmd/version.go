package cmd

import "runtime/debug"

// version is stamped at release time by goreleaser:
// -ldflags "-X github.com/agent-dev/agent/cmd.version=1.2.3". It is the one
// package variable of cmd, because the linker can only set variables.
var version = ""

// versionString returns the stamped version, else the module version of a
// `go install`ed binary, else "dev".
func versionString() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
