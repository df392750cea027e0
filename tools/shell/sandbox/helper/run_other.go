//go:build !linux

package helper

// run is Linux's; elsewhere the helper is never started.
func run(Options) int {
	fail(errUnsupported)
	return ExitSetup
}
