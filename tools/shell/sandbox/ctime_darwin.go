package sandbox

import (
	"syscall"
	"time"
)

func statCtime(st *syscall.Stat_t) time.Time {
	return time.Unix(int64(st.Ctimespec.Sec), int64(st.Ctimespec.Nsec))
}

// changeClock is the clock files' change times come from: the wall clock.
func changeClock() time.Time { return time.Now() }
