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

// fresh readies Start to run again with a window of w, and returns the
// channel closed once the default target is back.
func fresh(t *testing.T, w time.Duration) <-chan struct{} {
	t.Helper()
	was, window := debug.SetGCPercent(100), Window
	t.Cleanup(func() { debug.SetGCPercent(was); Window = window; restored.Store(nil) })
	Window = w
	done.Store(false)
	back := make(chan struct{})
	f := func() { close(back) }
	restored.Store(&f)
	return back
}

// The target goes back to Go's default once the window has passed, the
// live heap small or not: an idle interface keeps no raised goal.
func TestTheTargetGoesBackAfterTheWindow(t *testing.T) {
	t.Setenv("GOGC", "")
	back := fresh(t, time.Millisecond)
	Start()
	select {
	case <-back:
	case <-time.After(time.Minute): // a bound on a failure, not a wait
		t.Fatal("the default target was not restored after the window")
	}
	if p := percent(); p != 100 {
		t.Errorf("target %d after the window, want 100", p)
	}
}

// The target is raised while the live heap is small and goes back to
// Go's default once it passes LiveLimit; GOGC set by the person wins.
func TestTheTargetIsRaisedWhileTheLiveHeapIsSmall(t *testing.T) {
	t.Setenv("GOGC", "")
	back := fresh(t, time.Hour)

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
