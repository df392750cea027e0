//go:build unix

package host_test

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/providers/fake"
)

// A status line command that hangs is killed at its timeout, and says so.
func TestAHangingStatusLineIsKilledAtItsTimeout(t *testing.T) {
	f := newFixture(t, fake.New(), `status_line = { command = "echo $$ > pid; exec sleep 60", timeout = "300ms" }`+"\n")
	s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeAuto})
	_, err := s.RunStatusLine(t.Context(), host.StatusLineInput{SessionID: s.ID(), Model: "m"})
	if err == nil {
		t.Fatal("a hanging command gave a line")
	}
	data, _ := os.ReadFile(f.path("pid"))
	pid, perr := strconv.Atoi(strings.TrimSpace(string(data)))
	if perr != nil {
		t.Fatalf("pid %q", data)
	}
	if err := syscall.Kill(pid, 0); err != syscall.ESRCH {
		t.Errorf("the command's process %d is still there (%v)", pid, err)
	}
}
