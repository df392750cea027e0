//go:build !linux

package helperbin

// Path returns "": the helper is Linux's alone.
func Path() (string, error) { return "", nil }
