package sessions

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// processStart returns the start time of process pid in clock ticks since
// boot (field 22 of /proc/PID/stat), and whether the process exists.
func processStart(pid int) (int64, bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// The command name (field 2) is in parentheses and may hold spaces or
	// parentheses: the fields after it follow the last ')'.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, true
	}
	fields := bytes.Fields(data[i+1:])
	if len(fields) < 20 || string(fields[0]) == "Z" { // a zombie has exited
		return 0, len(fields) >= 20 && string(fields[0]) != "Z"
	}
	start, err := strconv.ParseInt(string(fields[19]), 10, 64)
	if err != nil {
		return 0, true
	}
	return start, true
}
