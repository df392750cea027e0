//go:build !linux

package helper

import "errors"

// run is Linux's; elsewhere the helper is never started.
func run(Options) int {
	fail(errors.New("this system has no sandbox helper"))
	return ExitSetup
}
