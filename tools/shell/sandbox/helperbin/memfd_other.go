//go:build !linux

package helperbin

import "os"

// File returns nil: the helper is Linux's alone.
func File() (*os.File, error) { return nil, nil }
