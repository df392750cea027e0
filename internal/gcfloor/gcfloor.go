// Package gcfloor keeps the garbage collector from running while the
// process's live heap is small. A run of agent allocates most of what it
// ever will as it starts and in its first turn (the configuration, the
// tools' schemas, the first requests and their records), nearly all of it
// garbage at once; at Go's default goal (GOGC=100: the heap may grow to
// twice the live heap, 4 MiB at least) a short run collected twice, about
// 5 ms of CPU, an eighth of a five-step -p task's. While the live heap is
// at most LiveLimit bytes, the goal is five times the live heap, 16 MiB at
// least (GOGC=400); past it, the goal is Go's default again, for the rest
// of the process: a long session's heap is what it would have been.
package gcfloor

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
	"time"
)

// Percent is the collector's target percentage (GOGC) while the live heap
// is small.
const Percent = 400

// LiveLimit is the live heap, in bytes, past which the collector's target
// goes back to Go's default: 4 MiB (a goal of 20 MiB at most before).
const LiveLimit = 4 << 20

// Window is how long after Start the target stays raised at most: the
// start and a headless run's turn. An interface left idle with its raised
// target woke 3 times a second (the runtime giving back the memory its
// goal let grow); with Go's default, not at all.
var Window = time.Second

// Start raises the collector's target until the live heap passes
// LiveLimit, which it checks after each collection (a finalizer's run),
// or Window has passed. A process started with GOGC set keeps the
// person's setting. Start is called once per process.
func Start() {
	if os.Getenv("GOGC") != "" {
		return
	}
	debug.SetGCPercent(Percent)
	arm()
	time.AfterFunc(Window, restore)
}

// done is set once the default target is back.
var done atomic.Bool

// restore sets Go's default target back, once.
func restore() {
	if done.Swap(true) {
		return
	}
	debug.SetGCPercent(100)
	if f := restored.Load(); f != nil {
		(*f)()
	}
}

// sentinel is an object whose finalizer runs after the first collection
// that finds it unreachable: one per collection, each arming the next. It
// holds a pointer, so it is not packed with other tiny objects (whose
// finalizers may never run).
type sentinel struct {
	p   *int     //lint:ignore U1000 its size and pointer keep it out of the tiny allocator
	pad [16]byte //lint:ignore U1000 as p
}

// restored, when set, is called once the default target is back
// (tests).
var restored atomic.Pointer[func()]

func arm() {
	runtime.SetFinalizer(&sentinel{}, func(*sentinel) {
		if done.Load() {
			return
		}
		if live() <= LiveLimit {
			arm()
			return
		}
		restore()
	})
}

// live is the live heap after the last collection, in bytes; the most a
// uint64 holds when the runtime does not say (the default target is then
// restored).
func live() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return ^uint64(0)
	}
	return s[0].Value.Uint64()
}
