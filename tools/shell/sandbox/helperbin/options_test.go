package helperbin

import (
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/tools/shell/sandbox/helper"
)

// TestTheHelpersReadTheSameOptions gives the embedded C helper command
// lines that package helper's Parse refuses and checks that it refuses
// each with the same message and ExitSetup, before doing anything. The
// first is every option Options.Args writes, then one it does not know: a
// C helper that refused an option the agent writes would fail there
// instead. (Nothing here may be accepted: the test runs outside any
// namespace, and a helper that went on would change this machine's
// mounts.)
func TestTheHelpersReadTheSameOptions(t *testing.T) {
	f, err := File()
	if err != nil {
		t.Fatal(err)
	}
	if f == nil {
		t.Skipf("no helper is embedded for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	every := helper.Options{RulesetFD: 3, Writable: []string{"/w", "/w 2"}, ReadOnlyRest: true, Pinned: []string{"/w/.git"},
		ReadOnly: []string{"/w/.git/hooks"}, Hidden: []string{"/home/u/.npmrc"}, PrivateMounts: true, Loopback: true,
		NoUnixSockets: true, Grace: 1500 * time.Millisecond, Probe: true, HoldNet: true, MaxProcs: 1024, CgroupFD: 4,
		CgroupThread: true, TmpFD: 5, TmpAt: "/tmp/agent-tmp-1", MakeTmp: 1 << 30, MapIDs: true, UID: 1000, GID: 1000,
		SuperviseOnly: true}.Args()
	every = append(every[:len(every)-1:len(every)-1], "--unheard-of", "--", "/bin/true")
	cases := [][]string{
		every,
		{"--grace-ms=soon", "--", "/bin/true"},
		{"--grace-ms=-1", "--", "/bin/true"},
		{"--ruleset-fd=three", "--", "/bin/true"},
		{"--max-procs=-5", "--", "/bin/true"},
		{"--cgroup-fd=x", "--", "/bin/true"},
		{"--tmp-fd=", "--", "/bin/true"},
		{"--map-ids=1000", "--", "/bin/true"},
		{"--map-ids=a:b", "--", "/bin/true"},
		{"--make-tmp=0", "--", "/bin/true"},
		{"--rw=/w"},
		{"--rw=/w", "--"},
		{"-x", "--", "/bin/true"},
	}
	for _, args := range cases {
		_, perr := helper.Parse(args)
		if perr == nil {
			t.Fatalf("helper.Parse accepted %q: the case would run", args)
		}
		path, extra := Exec(f, nil)
		cmd := exec.Command(path, append([]string{helper.Arg}, args...)...)
		cmd.ExtraFiles = extra
		out, err := cmd.CombinedOutput()
		want := "agent sandbox: " + perr.Error() + "\n"
		if code := exitCode(err); code != helper.ExitSetup || string(out) != want {
			t.Errorf("%q: the C helper exited %d with %q; the Go helper's Parse says %q (exit %d)",
				strings.Join(args, " "), code, out, want, helper.ExitSetup)
		}
	}
}
