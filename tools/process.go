package tools

import "time"

// Process is a background process of the session (bash's
// run_in_background) as front-ends list it; package background keeps
// them.
type Process struct {
	// ID is the process's id for the model and the person ("bash_1");
	// Command its command line.
	ID, Command string
	// PID is the process id of its process group's leader.
	PID     int
	Started time.Time
	// Running is true until the process has ended; then ExitCode is its
	// status (-1: killed by a signal) and Ended when it was seen to end.
	Running  bool
	ExitCode int
	Ended    time.Time
	// Stopped is true when kill_shell, the person or the session's end
	// stopped it.
	Stopped bool
	// OutputBytes counts everything it wrote, in bytes; Unread what the
	// model has not read of it.
	OutputBytes, Unread int64
}
