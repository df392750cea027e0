package lsp

import (
	"testing"
	"time"
)

// A server that says no versions gets longer to speak after a change when
// it was seen slow: twice its slowest publish, from 1 s up to 10 s.
func TestSilenceMeansNothingGrowsWithTheServersSlowness(t *testing.T) {
	for slowest, want := range map[time.Duration]time.Duration{
		0:                       time.Second,
		300 * time.Millisecond:  time.Second,
		1500 * time.Millisecond: 3 * time.Second,
		time.Minute:             10 * time.Second,
	} {
		if got := silenceMeansNothing(slowest); got != want {
			t.Errorf("slowest %v: %v, want %v", slowest, got, want)
		}
	}
}
