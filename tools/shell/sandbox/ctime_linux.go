package sandbox

import (
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

func statCtime(st *syscall.Stat_t) time.Time {
	return time.Unix(int64(st.Ctim.Sec), int64(st.Ctim.Nsec))
}

// changeClock reads the clock the kernel takes files' change times from:
// CLOCK_REALTIME_COARSE, updated once a tick (or, on filesystems with
// fine-grained timestamps, a clock never behind it). A file changed after
// the call gets a change time at or after what it returns, so the git guard
// needs no wait before a command starts; a change made in the same tick
// before the call counts as the command's too, which errs on the safe side.
func changeClock() time.Time {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_REALTIME_COARSE, &ts) != nil {
		return time.Now().Add(-10 * time.Millisecond) // a tick is at most 10 ms
	}
	return time.Unix(ts.Unix())
}
