package cmd

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/sessions"
)

// agent doctor counts the background processes of the sessions still
// running on this machine, from their marks beside the session database,
// and not those of an agent that is gone.
func TestDoctorCountsTheRunningBackgroundProcesses(t *testing.T) {
	data := t.TempDir()
	self := sessions.Self()
	live := filepath.Join(data, "agent", "background", fmt.Sprintf("%d-%d-abcd", self.PID, self.Start))
	gone := filepath.Join(data, "agent", "background", "999999999-1-abcd")
	for dir, names := range map[string][]string{live: {"bash_1.running", "bash_1.log", "bash_3.running"}, gone: {"bash_1.running"}} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			if err := os.WriteFile(filepath.Join(dir, n), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	var out bytes.Buffer
	c := NewRootCmd(Streams{Out: &out, Err: &out}, envOf(map[string]string{"XDG_DATA_HOME": data}), nil)
	c.SetArgs([]string{"doctor", "--config", writeConfig(t, ""), "-C", t.TempDir()})
	c.Execute()
	if !strings.Contains(out.String(), "background         2 processes running") {
		t.Errorf("doctor does not count the 2 running processes:\n%s", out.String())
	}
}
