//go:build unix

package background

import (
	"strings"
	"testing"
)

// The model stops a process with kill_shell while another read-only call
// of the same step runs (they run side by side); that call's result must
// not carry a note saying the process was stopped: kill_shell's result
// says so, and one end is told once.
func TestAProcessTheModelStopsIsNotToldAgainInAParallelCallsNote(t *testing.T) {
	for i := range 200 {
		m := newManager(t, Settings{})
		id := start(t, m, "exec sleep 600")
		stop := make(chan struct{})
		notes := make(chan string, 1)
		go func() {
			var all strings.Builder
			for {
				select {
				case <-stop:
					all.WriteString(m.Notes(""))
					notes <- all.String()
					return
				default:
					all.WriteString(m.Notes(""))
				}
			}
		}()
		call(t, Tools(m)[1], map[string]any{"shell_id": id})
		close(stop)
		if n := <-notes; n != "" {
			t.Fatalf("run %d: kill_shell's stop was also told in a note: %q", i, n)
		}
		m.Close()
	}
}
