package gcfloor

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// percent reads the collector's target.
func percent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// The target is raised while the live heap is small and goes back to
// Go's default once it passes LiveLimit; GOGC set by the person wins.
func TestTheTargetIsRaisedWhileTheLiveHeapIsSmall(t *testing.T) {
	t.Setenv("GOGC", "")
	was := debug.SetGCPercent(100)
	defer debug.SetGCPercent(was)
	back := make(chan struct{})
	restored = func() { close(back) }
	defer func() { restored = nil }()

	Start()
	if p := percent(); p != Percent {
		t.Fatalf("target %d after Start, want %d", p, Percent)
	}
	runtime.GC()
	runtime.GC()
	if p := percent(); p != Percent {
		t.Fatalf("target %d with a small live heap, want %d", p, Percent)
	}
	kept := make([][]byte, 0, 64)
	for range 64 {
		kept = append(kept, make([]byte, LiveLimit/32)) // twice LiveLimit, live
	}
	deadline := time.After(time.Minute) // a bound on a failure, not a wait
	for done := false; !done; {
		runtime.GC()
		select {
		case <-back:
			done = true
		case <-deadline:
			t.Fatal("the default target was not restored")
		default:
			runtime.Gosched()
		}
	}
	runtime.KeepAlive(kept)
	if p := percent(); p != 100 {
		t.Errorf("target %d with %d bytes live, want 100", p, 2*LiveLimit)
	}

	t.Setenv("GOGC", "50")
	debug.SetGCPercent(50)
	Start()
	if p := percent(); p != 50 {
		t.Errorf("target %d with GOGC=50, want 50", p)
	}
}
