//go:build !unix

package sessions_test

import "time"

// cpuTime is not measured here; the benchmark's cpu-ms/op reads 0.
func cpuTime() time.Duration { return 0 }
