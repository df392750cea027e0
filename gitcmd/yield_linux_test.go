package gitcmd

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// A Cmd that yields lowers git's priority: lower sets the nice value the
// kernel then reports for the process.
func TestLowerSetsTheNiceValue(t *testing.T) {
	cmd := exec.Command("cat") // waits on its standard input until the test closes it
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Skipf("no cat here: %v", err)
	}
	defer cmd.Wait()
	defer in.Close()
	lower(cmd.Process.Pid, yieldNice)
	b, err := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	// Fields after the command's name, in parentheses: state is the 3rd
	// field of the line, nice the 19th.
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(fields) < 17 || fields[16] != strconv.Itoa(yieldNice) {
		t.Errorf("/proc/PID/stat %q: want nice value %d", b, yieldNice)
	}
}

// A yielding Cmd runs git as Run always does: its output, its errors.
func TestAYieldingCmdRunsGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	c := Cmd{Dir: t.TempDir(), Yield: true}
	out, err := c.Run(t.Context(), "--version")
	if err != nil || !strings.HasPrefix(out, "git version") {
		t.Errorf("git --version: %q, %v", out, err)
	}
	if _, err := c.Run(t.Context(), "rev-parse", "--verify", "HEAD"); err == nil {
		t.Error("rev-parse outside a repository succeeded")
	}
	if ok, err := c.OK(t.Context(), "rev-parse", "--verify", "--quiet", "HEAD"); ok || err != nil {
		t.Errorf("OK outside a repository: %v, %v", ok, err)
	}
}
