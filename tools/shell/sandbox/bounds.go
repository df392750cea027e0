package sandbox

import (
	"fmt"
	"strings"

	"github.com/agent-dev/agent/tools"
)

// forkRefused are what shells and programs print when a fork fails because
// a process bound was reached.
var forkRefused = []string{"fork: retry: Resource temporarily unavailable", "fork: Resource temporarily unavailable",
	"Cannot fork", "can't fork", "failed to create new OS thread", "BlockingIOError: [Errno 11]"}

// boundNote tells the model which bound a command reached: the processes
// (the pids cgroup counted a refused fork, or, under RLIMIT_NPROC, the
// output says a fork failed) or the size of its temporary directory dir
// (it filled it, or it failed with "No space left on device" while the
// directory is nearly full).
func boundNote(res tools.Result, before, after boundUsage, dir string) string {
	var notes []string
	if after.maxProcs > 0 {
		hit := after.pidsHits > before.pidsHits
		for _, sign := range forkRefused {
			hit = hit || strings.Contains(res.Content, sign)
		}
		if hit {
			notes = append(notes, fmt.Sprintf("agent sandbox: the command reached the bound of %d processes (and threads) that a command may have at once; processes beyond it were refused. Start fewer at once, or tell the user, who can raise [sandbox] max_processes.", after.maxProcs))
		}
	}
	if after.tmpOK && after.tmpSz > 0 {
		// Full now, and filled by this command or failing for it.
		nearlyFull := after.tmpFree < after.tmpSz/50
		filled := after.tmpFree == 0 && before.tmpFree > 0
		if nearlyFull && (filled || strings.Contains(res.Content, "No space left on device")) {
			notes = append(notes, fmt.Sprintf("agent sandbox: the commands' temporary directory %s (TMPDIR) is full: it holds at most %d MiB. Remove what is no longer needed from it, or tell the user, who can raise [sandbox] tmp_size_mb.", dir, after.tmpSz>>20))
		}
	}
	return strings.Join(notes, "\n")
}
