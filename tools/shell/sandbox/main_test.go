package sandbox

import (
	"os"
	"testing"
)

// TestMain turns off the race detector's one-second sleep at exit, which
// the test binary, re-executed as the sandbox helper, would otherwise add
// to every command under -race.
func TestMain(m *testing.M) {
	if os.Getenv("GORACE") == "" {
		os.Setenv("GORACE", "atexit_sleep_ms=0")
	}
	os.Exit(m.Run())
}
